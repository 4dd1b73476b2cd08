! hpfrt's own test of several program units in one file: a module, the main program (with INTERFACE,
! CONTAINS and an internal subroutine), an external subroutine and a function. Only the main
! program maps data; the other units pass through, and their PRINTs run once.
module units_consts
  implicit none
  integer, parameter :: n = 20
end module units_consts

program units
  use units_consts
  implicit none
  interface
    subroutine report(label, x)
      character(len=*), intent(in) :: label
      real(8), intent(in) :: x
    end subroutine report
  end interface
  real(8) :: a(n), b(n)
  real(8) :: s
  integer :: i
  real(8), external :: scaled
!HPF$ DISTRIBUTE (BLOCK) :: a, b
  forall (i = 1:n) a(i) = dble(i)
  b = a
  s = sum(b)
  call report('sum', s)
  call show(scaled(s, 2))
contains
  subroutine show(x)
    real(8), intent(in) :: x
    print '(a, f12.4)', 'units: internal ', x
  end subroutine show
end program units

subroutine report(label, x)
  implicit none
  character(len=*), intent(in) :: label
  real(8), intent(in) :: x
  real(8) :: a(3)          ! a local 'a': not the main program's distributed one
  a = x
  print '(a, a, a, f12.4)', 'units: ', label, ' ', sum(a)
end subroutine report

real(8) function scaled(x, k)
  implicit none
  real(8), intent(in) :: x
  integer, intent(in) :: k
  scaled = x * k
end function scaled
