program t
  real(8) :: a(10)
!HPF$ DISTRIBUTE a(CYCLIC(0))
end
