#!/bin/sh
# hostile_cli.sh HPFRT CASE: feeds `hpfrt` one hostile input and checks
# that it exits 2 (never a crash: 139 was a stack overflow) with a short message on stderr that holds
# only printable text (nothing of the input echoed raw). Inputs are made here, in a scratch directory.
set -u
hpfrt="$1"
case_name="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

deep() { head -c 100000 /dev/zero | tr '\0' "$1"; }
deep '[' > deep_array.json
{ printf '{"nodes":'; deep '['; } > deep_platform.json
{ printf '{"n":4,"messages":'; deep '['; } > deep_com.json
{ printf '{"intra":{"L":'; deep '{'; } > deep_model.json
printf '\001\002\377\376\033[31m\007garbage\000\200' > garbage.bin
printf '{"nodes":[{"name":"a\\u0001\\u001b[2J"},{"name":"b"}],"edges":[{"from":"a","to":"\\u001b[2Jzz","cost":1}]}' \
  > escape_platform.json
printf '{"n":4,"messages":[[0,1,5],[2,2,3]]}' > self_com.json
printf '{"n":4,"messages":[[0,1,5],[2,3,3],[0,1,7]]}' > dup_com.json
printf '{"n":4,"messages":[[0,1,5],"%s"]}' "$(head -c 5000 /dev/zero | tr '\0' x)" > long_com.json
printf '{"intra":{"L":"fast","g0":1,"G":1}}' > string_model.json
printf '{"intra":{"L":1,"samples":[{"m":-100,"g":1}]}}' > negative_model.json
mkdir model_dir
{ printf 'program '; head -c 100000 /dev/zero | tr '\0' x; printf '\nend\n'; } > long_name.f90
{ printf 'program t\n  real(8) :: a(10)\n!HPF$ DISTRIBUTE a(BLOCK)\n  forall (i = 1:10'; deep '('; printf ') a(i) = 1\nend\n'; } > deep_parens.f90
printf 'program t\n  real(8) :: a(10)\n!HPF$ DISTRIBUTE a(CYCLIC(0))\nend\n' > cyclic0.f90
printf 'program t\n  real(8) :: a(10)\n!HPF$ DISTRIBUTE a(CYCLIC(-1))\nend\n' > cyclic_neg.f90
printf 'program t\n  real(8) :: a(10)\n!HPF$ PROCESSORS p(0)\n!HPF$ DISTRIBUTE a(BLOCK) ONTO p\nend\n' > procs0.f90
printf 'program t\n  real(8) :: a(2,2,2,2,2,2,2)\n!HPF$ DISTRIBUTE a(BLOCK,*,*,*,*,*,*)\nend\n' > rank7.f90

# want: a piece of the message that must be there
case "$case_name" in
  steady_deep) set -- steady --op scatter --platform deep_platform.json; want="nested deeper than 64" ;;
  steady_deep_array) set -- steady --op scatter --platform deep_array.json; want="nested deeper than 64" ;;
  steady_garbage) set -- steady --op scatter --platform garbage.bin; want="not valid JSON at byte" ;;
  steady_escapes) set -- steady --op scatter --platform escape_platform.json; want='unknown node' ;;
  all_to_many_deep) set -- all-to-many --com deep_com.json; want="nested deeper than 64" ;;
  all_to_many_garbage) set -- all-to-many --com garbage.bin; want="not valid JSON at byte" ;;
  all_to_many_long) set -- all-to-many --com long_com.json; want="messages[1] is a JSON string" ;;
  all_to_many_self) set -- all-to-many --com self_com.json; want="src = dst = 2 is a message to itself" ;;
  all_to_many_dup) set -- all-to-many --com dup_com.json; want="messages[2] repeats the pair (0, 1) of messages[0]" ;;
  all_to_many_dir) set -- all-to-many --com model_dir; want="is not a regular file" ;;
  bcast_deep) set -- bcast --ranks 4 --m 10 --model deep_model.json; want="nested deeper than 64" ;;
  bcast_garbage) set -- bcast --ranks 4 --m 10 --model garbage.bin; want="not valid JSON at byte" ;;
  bcast_dir) set -- bcast --ranks 4 --m 10 --model model_dir; want="is not a regular file" ;;
  bcast_field_type) set -- bcast --ranks 4 --m 10 --model string_model.json; want="intra.L must be a number, got a JSON string" ;;
  bcast_negative_size) set -- bcast --ranks 4 --m 10 --model negative_model.json; want="intra.samples[0].m must be an integer >= 0" ;;
  lower_long_name) set -- lower long_name.f90; want="long_name.f90:1: a name of 100000 characters" ;;
  lower_deep_parens) set -- lower deep_parens.f90; want="deep_parens.f90:4: unbalanced parentheses" ;;
  lower_garbage) set -- lower garbage.bin; want="expected 'PROGRAM name'" ;;
  lower_cyclic0) set -- lower cyclic0.f90; want="cyclic0.f90:3: CYCLIC(0): the block size must be in [1, 2147483647], got 0" ;;
  lower_cyclic_neg) set -- lower cyclic_neg.f90; want="cyclic_neg.f90:3: CYCLIC(-1)" ;;
  lower_procs0) set -- lower procs0.f90; want="procs0.f90:3: PROCESSORS p: extent 1 must be in [1, 2147483647], got 0" ;;
  lower_rank7) set -- lower rank7.f90; want="rank7.f90:3: 7 distributions" ;;
  *) echo "hostile_cli.sh: unknown case $case_name"; exit 1 ;;
esac

err=$("$hpfrt" "$@" 2>&1 >/dev/null)
rc=$?
printf '%s\nexit %s\n' "$err" "$rc"
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, expected 2"; exit 1; }
case "$err" in *"$want"*) ;; *) echo "FAIL: the message lacks: $want"; exit 1 ;; esac
[ "${#err}" -le 600 ] || { echo "FAIL: a message of ${#err} characters: the input is echoed"; exit 1; }
if printf '%s' "$err" | LC_ALL=C grep -q '[^[:print:][:space:]]'; then
  echo "FAIL: the message holds non-printable bytes"
  exit 1
fi
echo "PASS"
