// The alpha-beta model of a communicator: alpha = start-up time of a message (s), beta = time per
// byte (s/B). Used by cost-model choices such as Strategy::Auto of redistribution.
#pragma once

#include <hpf/core/mpi.hpp>

namespace hpf {

struct NetworkModel {
  double alpha = 0; ///< seconds per message (start-up)
  double beta = 0;  ///< seconds per byte
};

/// Collective over `comm`: measures alpha and beta by ping-pong between ranks 0 and 1 (medians of
/// repeated round trips of 0 bytes and of 1 MiB) and broadcasts them; on a one-rank communicator it
/// times a local memcpy for beta and takes alpha = 0. The result is cached per communicator handle:
/// the first call for a communicator communicates (every rank of it must make that call), later
/// calls return the cached model without communication.
NetworkModel measure_network(const Comm& comm);

} // namespace hpf
