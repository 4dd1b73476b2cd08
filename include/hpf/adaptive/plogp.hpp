// pLogP is part of the one machine model of exec/ (exec/plogp.hpp); this header keeps adaptive/'s path.
#pragma once
#include <hpf/exec/plogp.hpp>
