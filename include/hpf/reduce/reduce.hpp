// The reduce/ layer (Canon and Antoniu): reduction trees, their evaluator, and the MPI tree reducer. The tree
// reduction of a DistArray is in array/tree_reduce.hpp (hpf/hpf.hpp includes both).
#pragma once

#include <hpf/reduce/tree.hpp>
#include <hpf/reduce/tree_reducer.hpp>
