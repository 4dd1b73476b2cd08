program t
  real(8) :: a(10), b(0:9, 5)
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE a(CYCLIC(3)) ONTO p
!HPF$ DISTRIBUTE (BLOCK, *) ONTO p :: b
!HPF$ DYNAMIC a
  real(8) :: s
  a = 0.0d0
  forall (i = 1:10) a(i) = i * 2.0d0
  s = sum(a)
!HPF$ REDISTRIBUTE a(BLOCK)
  print *, s
end program t
