// hpfrt: HPF-style distributed arrays on MPI. The one header to include.
#pragma once

#include <hpf/core/error.hpp>
#include <hpf/core/math.hpp>
#include <hpf/core/mpi.hpp>

#include <hpf/layout/align.hpp>
#include <hpf/layout/cyclic_map.hpp>
#include <hpf/layout/distribution.hpp>
#include <hpf/layout/grid_coords.hpp>
#include <hpf/layout/halo.hpp>
#include <hpf/layout/layout.hpp>
#include <hpf/layout/process_grid.hpp>
#include <hpf/layout/runs.hpp>

#include <hpf/schedule/all_to_many.hpp>
#include <hpf/schedule/assignment.hpp>
#include <hpf/schedule/routing.hpp>
#include <hpf/schedule/schedule.hpp>
#include <hpf/schedule/strategy.hpp>

#include <hpf/exec/exchange.hpp>
#include <hpf/exec/model.hpp>

#include <hpf/adaptive/broadcast.hpp>
#include <hpf/adaptive/broadcast_model.hpp>
#include <hpf/adaptive/hierarchical.hpp>
#include <hpf/adaptive/plogp.hpp>

#include <hpf/redist/batch.hpp>
#include <hpf/redist/pattern.hpp>
#include <hpf/redist/plan.hpp>
#include <hpf/redist/plan_cache.hpp>
#include <hpf/redist/relabel.hpp>
#include <hpf/redist/runs.hpp>

#include <hpf/section/plan.hpp>
#include <hpf/section/section_map.hpp>
#include <hpf/section/triplet.hpp>

#include <hpf/irregular/com.hpp>
#include <hpf/irregular/gather_scatter.hpp>

#include <hpf/array/algorithms.hpp>
#include <hpf/array/batch.hpp>
#include <hpf/array/dist_array.hpp>
#include <hpf/array/environment.hpp>
#include <hpf/array/irregular.hpp>
#include <hpf/array/realign.hpp>
#include <hpf/array/scatter_combine.hpp>
#include <hpf/array/section.hpp>
#include <hpf/array/transform.hpp>
#include <hpf/array/series.hpp>
#include <hpf/array/shift.hpp>
#include <hpf/array/tree_reduce.hpp>
#include <hpf/reduce/reduce.hpp>
