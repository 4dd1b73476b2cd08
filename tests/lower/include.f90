! hpfrt's own test of INCLUDE: the arrays and their directives are in include_decls.inc.
program incl
  use hpf_serial
  implicit none
  include 'include_decls.inc'
  integer :: i
  real(8) :: total, total2
  forall (i = 1:n) x(i) = dble(i) / 4.0d0
  forall (i = 1:n) y(i) = dble(i) * 0.5d0 + 1.0d0
  total = sum(y)
  total2 = sum(x)
  print '(a, 2f16.8)', 'include: ', total, total2
end program incl
