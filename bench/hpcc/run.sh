#!/usr/bin/env bash
# Runs the HPC Challenge examples (examples/hpcc, docs/hpcc.md) against their reference codes on 2 and
# 4 ranks, in several jobs, and writes docs/results/hpcc.csv (one row per job, kernel, case, ranks,
# size and method, with hpfrt / peer inside the job), docs/results/hpcc.png (bench/hpcc/plot.py) and
# docs/results/hpcc_lines.csv (bench/hpcc/count_lines.py; needs HPCC_SRC).
#   - STREAM triad, RandomAccess and the 1-D FFT against the hpcc binary (Debian's /usr/bin/hpcc), run
#     from a generated hpccinf.txt whose HPL N sets hpcc's sizes; the examples then run at the sizes
#     hpcc chose (STREAM_VectorSize, MPIRandomAccess_N, MPIFFT_N, read from its hpccoutf.txt).
#   - PTRANS against ScaLAPACK's pdtran_ (bench_hpcc_pdtran): hpcc's own PTRANS is left aside, as
#     Debian's hpcc fails to allocate its matrices above n = 512.
#   - 2-D and 3-D FFTs against FFTW-MPI (bench_hpcc_fftw_mpi, FFTW_MPI_TRANSPOSED_OUT, and the
#     transpose step alone).
# Inside a job each peer and hpfrt run back to back on the same sizes and ranks, in an order that
# alternates from job to job.
#
# Usage: bench/hpcc/run.sh [build dir]   (default: a Release build in build-release; an existing build
# dir is used as it is configured). Environment (defaults in brackets):
#   HPF_HPCC_JOBS [5]            jobs
#   HPF_HPCC_N [4096]            HPL's N in hpccinf.txt, which sets hpcc's STREAM, RandomAccess and
#                                MPIFFT sizes (hpcc's RandomAccess table is about N^2 words)
#   HPF_HPCC_RANKS ["2 4"]       rank counts
#   HPF_HPCC_PTRANS ["4096 8192"] PTRANS matrix orders (nb 64)
#   HPF_HPCC_FFT2D [4096]  HPF_HPCC_FFT3D [256]   N-D FFT extents per dimension
#   HPF_HPCC_REPEATS [5]         repeats of the PTRANS and FFT programs (they report the median)
#   HPF_HPCC_NATURAL [0]         1: also FFTW-MPI without FFTW_MPI_TRANSPOSED_OUT
#   HPF_HPCC_OUT [docs/results/hpcc]  output prefix (.csv, .png, _lines.csv)
#   HPF_HPCC_KERNELS ["STREAM RandomAccess FFT-1D PTRANS FFT-ND"]  the kernels to run (the CSV's
#                                names); with fewer, the other kernels' rows and header lines of the
#                                existing CSV are kept (header lines marked "kept") and the new rows
#                                replace the rerun kernels' rows
#   HPCC_SRC                     the unpacked hpcc 1.5.0 source, for the line count (skipped unset)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build-release}"
jobs="${HPF_HPCC_JOBS:-5}"
hpl_n="${HPF_HPCC_N:-4096}"
read -r -a rank_counts <<< "${HPF_HPCC_RANKS:-2 4}"
read -r -a ptrans_sizes <<< "${HPF_HPCC_PTRANS:-4096 8192}"
fft2d="${HPF_HPCC_FFT2D:-4096}"
fft3d="${HPF_HPCC_FFT3D:-256}"
repeats="${HPF_HPCC_REPEATS:-5}"
natural="${HPF_HPCC_NATURAL:-0}"
out="${HPF_HPCC_OUT:-docs/results/hpcc}"
all_kernels="STREAM RandomAccess FFT-1D PTRANS FFT-ND"
read -r -a kernels <<< "${HPF_HPCC_KERNELS:-$all_kernels}"
# want KERNEL: whether KERNEL is among those to run.
want() { [[ " ${kernels[*]} " == *" $1 "* ]]; }
hpcc_needed=0
for k in STREAM RandomAccess FFT-1D; do want "$k" && hpcc_needed=1; done
((!hpcc_needed)) || command -v hpcc > /dev/null || { echo "run.sh: the hpcc binary is not installed (apt-get install hpcc)" >&2; exit 1; }

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" -j "$HPF_JOBS" --target hpcc_stream hpcc_ptrans hpcc_random_access hpcc_fft1d \
  hpcc_fftnd bench_hpcc_pdtran bench_hpcc_fftw_mpi > /dev/null
ex="$build/examples/hpcc"
peer="$build/bench/hpcc"
cd "$HPF_ROOT"
csv="$out.csv"
work=$(mktemp -d)
old_csv=""
if [[ "${kernels[*]}" != "$all_kernels" && -f "$csv" ]]; then # a subset: merged into the old CSV at the end
  old_csv="$work/old.csv"
  cp "$csv" "$old_csv"
fi
load_start
# shellcheck disable=SC2154 # load_start sets load; this trap replaces its own, which removes it
trap 'rm -rf "$work" "$load"' EXIT

# run NP PROGRAM ARGS...: the program's last line, after checking that it says "check OK".
run() {
  local np=$1 line
  shift
  line=$(mpirun --oversubscribe --bind-to none -np "$np" "$@" | tail -1)
  echo "  $line" >&2
  [[ "$line" == *"check OK"* ]] || { echo "run.sh: $* on $np ranks failed its check" >&2; exit 1; }
  echo "$line"
}

# field NAME LINE: the number after "NAME " in LINE.
field() { sed -n "s|.*$1 \([0-9.e+-]*\).*|\1|p" <<< "$2"; }

# log2 X: the exponent of the power of two at or below X.
log2() {
  local m=0
  while (($1 >> (m + 1))); do m=$((m + 1)); done
  echo "$m"
}

# hpcc_key KEY: KEY's value in the last hpcc run's summary.
hpcc_key() { sed -n "s/^$1=//p" "$work/hpccoutf.txt"; }

# hpcc_sizes: the sizes hpcc chose in its last run: STREAM's vector per process, RandomAccess's table
# and MPIFFT's N.
hpcc_sizes() { echo "$(hpcc_key STREAM_VectorSize) $(hpcc_key MPIRandomAccess_N) $(hpcc_key MPIFFT_N)"; }

# hpcc_run NP: runs the hpcc binary on NP ranks in $work, HPL of order $hpl_n on HPCC's grid.
hpcc_run() {
  local np=$1 p=1 f
  for ((f = 1; f * f <= np; f++)); do ((np % f == 0)) && p=$f; done
  hpcc_input "$p" $((np / p)) > "$work/hpccinf.txt"
  rm -f "$work/hpccoutf.txt"
  (cd "$work" && mpirun --oversubscribe --bind-to none -np "$np" hpcc > /dev/null)
  grep -q "^Success=1" "$work/hpccoutf.txt" || echo "run.sh: hpcc on $np ranks reports a failure" >&2
}

# hpcc_input P Q: hpcc's input file (HPL's, then PTRANS's lines), HPL of order $hpl_n on a P x Q grid.
hpcc_input() {
  cat << EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$hpl_n       Ns
1            # of NBs
128          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$1           Ps
$2           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF
}

# row KERNEL CASE RANKS SIZE METHOD VALUE UNIT HIGHER_IS_BETTER RATIO NOTE: one line of the CSV.
row() { echo "$job,$1,$2,$3,$4,$5,$6,$7,$8,$9,${10}" >> "$csv"; }

# pair KERNEL CASE RANKS SIZE UNIT HIGHER_IS_BETTER PEER PEER_VALUE HPF_VALUE [NOTE]: the peer's row
# (with NOTE) and hpfrt's, which carries hpfrt / peer.
pair() {
  local ratio
  ratio=$(awk -v a="$9" -v b="$8" 'BEGIN { printf "%.5g", a / b }')
  row "$1" "$2" "$3" "$4" "$7" "$8" "$5" "$6" "" "${10:-}"
  row "$1" "$2" "$3" "$4" hpfrt "$9" "$5" "$6" "$ratio" ""
}

# nd_seconds DIMS N GFLOPS: the time of an N^DIMS FFT that ran at GFLOPS (5 N log2 N flops).
nd_seconds() { awk -v d="$1" -v n="$2" -v g="$3" 'BEGIN { t = n ^ d; printf "%.6f", 5 * t * log(t) / log(2) / (g * 1e9) }'; }

sizes=()
echo "job,kernel,case,ranks,size,method,value,unit,higher_is_better,ratio,note" > "$csv"
for job in $(seq 1 "$jobs"); do
  peer_first=$((job % 2)) # the peer runs first in odd jobs, hpfrt in even ones
  for np in "${rank_counts[@]}"; do
    load_note "job $job ranks $np"
    echo "job $job, $np ranks" >&2
    # hpcc's STREAM, RandomAccess and MPIFFT, and the examples at hpcc's sizes, which depend on N and
    # the ranks only: in even jobs the examples run first, at the sizes hpcc chose in job 1.
    if ((hpcc_needed)); then
      ((peer_first)) && sizes[np]="$(hpcc_run "$np" && hpcc_sizes)"
      read -r vec table fftn <<< "${sizes[np]}"
      m=$(log2 "$table")
      mf=$(log2 "$fftn")
      ra_note=""
      ((table == 1 << m)) || ra_note="hpcc's table of $table words is not a power of two: hpfrt ran 2^$m"
      fft_note=""
      ((fftn == 1 << mf)) || fft_note="hpcc's MPIFFT N $fftn is not a power of two: hpfrt ran 2^$mf"
      want STREAM && stream=$(run "$np" "$ex/hpcc_stream" "$vec")
      want RandomAccess && ra=$(run "$np" "$ex/hpcc_random_access" "$m")
      want FFT-1D && fft1=$(run "$np" "$ex/hpcc_fft1d" "$mf" "$repeats")
      if ((!peer_first)); then
        hpcc_run "$np"
        [[ "$(hpcc_sizes)" == "${sizes[np]}" ]] || echo "run.sh: hpcc chose other sizes than in job 1" >&2
      fi
      updates="hpcc ran $(hpcc_key MPIRandomAccess_ExeUpdates) of $((4 * table)) updates (time bound $(hpcc_key MPIRandomAccess_TimeBound) s)"
      want STREAM && pair STREAM triad "$np" "$vec" GB/s 1 hpcc "$(hpcc_key StarSTREAM_Triad)" "$(field Triad "$stream")"
      want RandomAccess && pair RandomAccess "table 2^$m" "$np" "$table" GUP/s 1 hpcc \
        "$(hpcc_key MPIRandomAccess_GUPs)" "$(field GUP/s "$ra")" "${ra_note:-$updates}"
      want FFT-1D && pair FFT-1D 1-D "$np" "$fftn" GFLOP/s 1 hpcc "$(hpcc_key MPIFFT_Gflops)" \
        "$(field GFLOP/s "$fft1")" "$fft_note"
    fi

    # PTRANS: hpcc_ptrans against pdtran_.
    want PTRANS && for n in "${ptrans_sizes[@]}"; do
      if ((peer_first)); then
        p=$(run "$np" "$peer/bench_hpcc_pdtran" "$n" 64 "$repeats")
        h=$(run "$np" "$ex/hpcc_ptrans" "$n" 64 "$repeats")
      else
        h=$(run "$np" "$ex/hpcc_ptrans" "$n" 64 "$repeats")
        p=$(run "$np" "$peer/bench_hpcc_pdtran" "$n" 64 "$repeats")
      fi
      pair PTRANS "nb 64" "$np" "$n" GB/s 1 pdtran "$(field GB/s "$p")" "$(field GB/s "$h")"
    done

    # 2-D and 3-D FFTs: hpcc_fftnd (slabs; pencils in 3-D) against FFTW-MPI (slabs, transposed out).
    want FFT-ND && for spec in "2 $fft2d" "3 $fft3d"; do
      read -r d n <<< "$spec"
      if ((peer_first)); then
        f=$(run "$np" "$peer/bench_hpcc_fftw_mpi" "$d" "$n" transposed "$repeats")
      fi
      hs=$(run "$np" "$ex/hpcc_fftnd" "$d" "$n" slab "$repeats")
      ((d == 3)) && hp=$(run "$np" "$ex/hpcc_fftnd" "$d" "$n" pencil "$repeats")
      if ((!peer_first)); then
        f=$(run "$np" "$peer/bench_hpcc_fftw_mpi" "$d" "$n" transposed "$repeats")
      fi
      ft=$(run "$np" "$peer/bench_hpcc_fftw_mpi" "$d" "$n" transpose "$repeats")
      fw=$(field seconds "$f")
      pair FFT-ND "$d-D slabs" "$np" "$n^$d" s 0 fftw-mpi "$fw" "$(nd_seconds "$d" "$n" "$(field GFLOP/s "$hs")")" \
        "fftw-mpi: FFTW_MPI_TRANSPOSED_OUT"
      if ((d == 3)); then
        t=$(nd_seconds "$d" "$n" "$(field GFLOP/s "$hp")")
        row FFT-ND "3-D pencils" "$np" "$n^$d" hpfrt "$t" s 0 "$(awk -v a="$t" -v b="$fw" 'BEGIN { printf "%.5g", a / b }')" \
          "against fftw-mpi's slabs"
      fi
      row FFT-ND "$d-D slabs" "$np" "$n^$d" fftw-mpi-transpose "$(field seconds "$ft")" s 0 "" \
        "the global transpose alone"
      if ((natural)); then
        fn=$(run "$np" "$peer/bench_hpcc_fftw_mpi" "$d" "$n" natural "$repeats")
        row FFT-ND "$d-D slabs" "$np" "$n^$d" fftw-mpi-natural "$(field seconds "$fn")" s 0 "" \
          "without FFTW_MPI_TRANSPOSED_OUT"
      fi
    done
  done
done
load_note after
csv_stamp "$csv"
if [[ -n "$old_csv" ]]; then
  # The rerun kernels' rows replace theirs; the other kernels' rows and the old header lines stay.
  {
    grep '^#' "$csv"
    sed -n 's/^# \(.*\)/# kept (not rerun: the other kernels): \1/p' "$old_csv" | grep -v '^# kept (not rerun: the other kernels): kept'
    grep '^# kept' "$old_csv" || true
    awk '!/^#/ { print; exit }' "$csv" # the header row (no early-closed pipe: pipefail)
    awk -F, -v rerun=" ${kernels[*]} " 'NR > 0 && !/^#/ && $1 != "job" && index(rerun, " " $2 " ") == 0' "$old_csv"
    grep -v '^#' "$csv" | tail -n +2
  } > "$work/merged.csv"
  mv "$work/merged.csv" "$csv"
fi
/usr/bin/python3 "$(dirname "$0")/plot.py" "$csv" "$out.png"
echo "plot: $out.png" >&2
if [[ -n "${HPCC_SRC:-}" ]]; then
  /usr/bin/python3 "$(dirname "$0")/count_lines.py" "$HPCC_SRC" "${out}_lines.csv"
else
  echo "run.sh: HPCC_SRC is not set (the unpacked hpcc 1.5.0 source): no line count" >&2
fi
