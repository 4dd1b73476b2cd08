program t
  integer :: x(3) &
    , y
  x = "it's ! not a comment"
end
