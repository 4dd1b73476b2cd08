# Sourced by the SMPI scripts (bench/redistribute/smpi_run.sh, bench/all_to_many/smpi_run.sh,
# bench/adaptive/smpi_run.sh): building a Kokkos-free driver with smpicxx, the platform and host file
# of N simulated ranks, and the SMPI options every run uses. Needs scripts/env.sh sourced (HPF_ROOT).
command -v smpicxx > /dev/null || { echo "smpicxx missing: apt-get install -y libsimgrid-dev simgrid" >&2; exit 2; }

# smpi_build OUT_DIR EXE_NAME SOURCE...: compiles each source (relative to HPF_ROOT) with smpicxx
# (through ccache if present), once, again when it or any header is newer, and links
# OUT_DIR/EXE_NAME. The runtime's sources (runtime/...) go to OUT_DIR/../objects, which the drivers
# built beside OUT_DIR share (the flags are the same): under a lock, so that scripts run side by side
# (CTest's SMPI smoke runs) compile each of them once; a driver's own sources go to OUT_DIR.
smpi_compile() {
  local src="$1" o="$2"
  if [ ! -f "$o" ] || [ "$HPF_ROOT/$src" -nt "$o" ] ||
    [ -n "$(find "$HPF_ROOT/include/hpf" "$HPF_ROOT/bench/common" -newer "$o" -name '*.hpp' | head -1)" ]; then
    "${cc[@]}" -std=c++20 -O2 -DHPF_SMPI -Wall -Wextra -include "$HPF_ROOT/bench/reduce_tree/smpi_shim.h" \
      -I"$HPF_ROOT/include" -c "$HPF_ROOT/$src" -o "$o.tmp.$$"
    mv "$o.tmp.$$" "$o"
  fi
}
smpi_build() {
  local out="$1" exe="$1/$2" shared="$1/../objects" src o
  shift 2
  local cc=(smpicxx) objs=() own=()
  if command -v ccache > /dev/null; then cc=(ccache smpicxx); fi
  mkdir -p "$out" "$shared"
  for src in "$@"; do
    case "$src" in
      runtime/*) objs+=("$shared/$(echo "${src%.cpp}" | tr / _).o") ;;
      *) own+=("$src"); objs+=("$out/$(basename "${src%.cpp}").o") ;;
    esac
  done
  (
    flock 9
    for src in "$@"; do
      case "$src" in runtime/*) smpi_compile "$src" "$shared/$(echo "${src%.cpp}" | tr / _).o" ;; esac
    done
  ) 9> "$shared/.lock"
  for src in "${own[@]}"; do smpi_compile "$src" "$out/$(basename "${src%.cpp}").o"; done
  if [ ! -f "$exe" ] || [ -n "$(find "${objs[@]}" -newer "$exe" | head -1)" ]; then smpicxx "${objs[@]}" -o "$exe"; fi
}

# smpi_platform KIND N OUT_DIR: prints the path of the platform XML, bench/platforms/KIND_N.xml when
# committed, else generated into OUT_DIR by make_platforms.py.
smpi_platform() {
  local xml="$HPF_ROOT/bench/platforms/$1_$2.xml"
  if [ ! -f "$xml" ]; then
    xml="$3/$1_$2.xml"
    [ -f "$xml" ] || python3 "$HPF_ROOT/bench/platforms/make_platforms.py" "$1" "$2" "$xml" >&2 || exit 2
  fi
  echo "$xml"
}

# smpi_hostfile N OUT_DIR: prints the path of a host file node-0 .. node-(N-1).
smpi_hostfile() {
  local hosts="$2/hostfile_$1"
  seq 0 $(($1 - 1)) | sed 's/^/node-/' > "$hosts"
  echo "$hosts"
}

# No SMPI bandwidth/latency correction factors and no TCP cross-traffic: links are the XML's.
# simulate-computation:no: computation costs no simulated time (communication time only, as in the papers).
# smpi/test:0, smpi/iprobe:0: SMPI charges polling calls a delay by default; Open MPI's cost next to nothing.
# contexts/stack-size:1024 (KiB): 1024 simulated ranks in one process.
smpi_cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
          --cfg=network/crosstraffic:0 --cfg=smpi/test:0 --cfg=smpi/iprobe:0 --cfg=contexts/stack-size:1024
          --log=root.thres:critical)
