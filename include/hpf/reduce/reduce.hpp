// The reduce/ layer (seed 002): reduction trees, their evaluator, and the MPI tree reducer.
#pragma once

#include <hpf/reduce/array.hpp>
#include <hpf/reduce/tree.hpp>
#include <hpf/reduce/tree_reducer.hpp>
