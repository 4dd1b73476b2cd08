C     hpfrt's own fixed-form HPF test: CHPF$ and *HPF$ directives, a continued
C     directive, continuation lines, labels, DO loops ending on a labelled
C     CONTINUE, implicit typing, a DIMENSION statement and a literal
C     PROCESSORS P(4) that must run on any number of ranks.
cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
      PROGRAM FIXED
      PARAMETER (N = 24)
      DIMENSION U(N), V(N)
      REAL*8 U, V
      INTEGER K(N)
      DOUBLE PRECISION TOTAL,
     &                 BIG
CHPF$ PROCESSORS P(4)
CHPF$ DISTRIBUTE U(BLOCK)
CHPF$*ONTO P
*HPF$ DISTRIBUTE (CYCLIC(2)) ONTO P :: V
!HPF$ DISTRIBUTE K(BLOCK) ONTO P
CHPF$ SHADOW U(1)
c     Fill, then three smoothing steps.
      FORALL (I = 1:N) U(I) = DBLE(MOD(5 * I, 7))
      DO 10 ISTEP = 1, 3
         FORALL (I = 2:N - 1) U(I) = 0.5D0 * U(I) +
     &      0.25D0 * (U(I - 1) + U(I + 1))
   10 CONTINUE
      V = U
      FORALL (I = 1:N) K(I) = I * I
      TOTAL = SUM(V)
      BIG = MAXVAL(U)
      ISUM = SUM(K)
      DO 20 J = 1, 2
         WRITE (*, 100) J, TOTAL * J, BIG
   20 CONTINUE
  100 FORMAT ('fixed: ', I2, 2F16.10)
      PRINT *, 'fixed: sum of squares', ISUM
      END
