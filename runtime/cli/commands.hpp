// Sub-commands of the `hpfrt` tool. Each registers itself on the app; main() dispatches.
#pragma once

#include <CLI/CLI.hpp>

namespace hpf::cli {

/// `hpfrt layout`: ownership map of a 1-D or 2-D block-cyclic layout (no MPI needed).
void register_layout(CLI::App& app);

} // namespace hpf::cli
