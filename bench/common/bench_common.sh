# Sourced by benchmark scripts (after scripts/env.sh). A CSV in docs/results/ records the machine and
# its load in header lines starting with '#', which check-claims and the plot scripts skip.

# load_start: sets `load` to a temporary file for `load_note` lines, removed on exit.
load_start() {
  load=$(mktemp)
  trap 'rm -f "$load"' EXIT
}

# load_note WHEN: appends "WHEN: `uptime`" to the load file (the machine is shared: note it around
# each job).
load_note() { echo "$1: $(uptime)" >> "$load"; }

# csv_stamp CSV: puts the machine (CPU model, cores, the MPI library and the OMPI_MCA_ settings) and
# the load file's lines at the head of CSV, each line starting with '#'.
csv_stamp() {
  local out
  out=$(mktemp)
  {
    echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $(mpirun --version | head -1)"
    echo "# mpi settings: $(env | grep '^OMPI_MCA_' | sort | tr '\n' ' ')"
    sed 's/^/# load /' "$load"
    cat "$1"
  } > "$out"
  mv "$out" "$1"
}
