C     hpfrt's own test, fixed form with CHPF$: a distributed array in COMMON whose bounds are
C     written N in the main program and 20 in a subroutine, and a CYCLIC(3) dummy argument.
      PROGRAM CFIXED
      INTEGER N
      PARAMETER (N = 20)
      DOUBLE PRECISION A(N), S
      COMMON /BLK/ A
CHPF$ DISTRIBUTE A(BLOCK)
      INTEGER I
      DO 10 I = 1, N
         A(I) = DBLE(I)
   10 CONTINUE
      CALL TWICE(N)
      CALL TOTAL(A, N, S)
      PRINT '(A, F10.2)', 'SUM ', S
      END
      SUBROUTINE TWICE(N)
      INTEGER N, I
      DOUBLE PRECISION A(20)
      COMMON /BLK/ A
CHPF$ DISTRIBUTE A(BLOCK)
      FORALL (I = 1:N) A(I) = 2 * A(I)
      END
      SUBROUTINE TOTAL(X, M, S)
      INTEGER M
      DOUBLE PRECISION X(M), S
CHPF$ DISTRIBUTE X(CYCLIC(3))
      S = SUM(X)
      END
