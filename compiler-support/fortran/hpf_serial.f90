!> The serial stand-in for HPF's NUMBER_OF_PROCESSORS() intrinsic.
!>
!> An HPF program compiled by an ordinary Fortran compiler reads its !HPF$ directives as comments, but
!> a statement that calls NUMBER_OF_PROCESSORS() (to size a GEN_BLOCK table or an INDIRECT map, say)
!> needs the function. `USE hpf_serial` gives it, with the serial answer: one processor. `hpfrt lower`
!> drops that USE and lowers every NUMBER_OF_PROCESSORS() to the number of MPI ranks.
module hpf_serial
  implicit none
  private
  public :: number_of_processors
contains
  integer function number_of_processors()
    number_of_processors = 1
  end function number_of_processors
end module hpf_serial
