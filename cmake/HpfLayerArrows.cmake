# DESIGN.md's arrows between the layers: the direct dependencies of each folder of include/hpf and
# runtime/. One table, read by HpfLayers.cmake (the OBJECT libraries link along it) and by
# HpfCheckLayers.cmake (the #include lines of every layer are checked against it, test `layers`).
#
# core_base is core without its MPI RAII: every header of core/ but core/mpi.hpp (error, math,
# names, stats, tags). It is what schedule/ may see: schedule/ is pure and compiles without mpi.h.
# array/ also reaches irregular/ and reduce/: it holds their DistArray faces (GatherPlan, ScatterPlan,
# tree_reduce of a DistArray), which need both the array and the engine below it; and steady/ for the
# series API (ReductionSeries, ScatterSeries). steady/ reaches adaptive/ for Lowekamp's clustering
# (Steffenel), which measure_platform uses above pairwise_max ranks.
set(HPF_LAYERS core_base core layout schedule exec redist irregular steady reduce adaptive section array)
set(HPF_ARROWS_core_base "")
set(HPF_ARROWS_core core_base)
set(HPF_ARROWS_layout core)
set(HPF_ARROWS_schedule core_base)
set(HPF_ARROWS_exec schedule core)
set(HPF_ARROWS_redist layout schedule exec)
set(HPF_ARROWS_irregular schedule exec)
set(HPF_ARROWS_steady schedule exec adaptive)
set(HPF_ARROWS_reduce exec schedule)
set(HPF_ARROWS_adaptive exec schedule)
set(HPF_ARROWS_section layout schedule exec)
set(HPF_ARROWS_array layout redist irregular reduce section steady)
