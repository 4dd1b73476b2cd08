C     COMPLEX distributed arrays in fixed form with CHPF$: COMPLEX*16,
C     DOUBLE COMPLEX and COMPLEX*8 under DISTRIBUTE and ALIGN, an
C     INDEPENDENT DO, array assignments, CSHIFT, SUM and PRINT. Every
C     value is a small dyadic rational, so every sum is exact.
      PROGRAM CPLXF
      IMPLICIT NONE
      INTEGER N, M
      PARAMETER (N = 10, M = 4)
      COMPLEX*16 A(N, M), B(N, M)
      DOUBLE COMPLEX V(N)
      COMPLEX*8 X(N)
      COMPLEX(KIND(1.0D0)) TOTAL
      INTEGER I, J
CHPF$ PROCESSORS P(NUMBER_OF_PROCESSORS())
CHPF$ DISTRIBUTE A(CYCLIC(3), *) ONTO P
CHPF$ ALIGN B(I, J) WITH A(I, J)
CHPF$ DISTRIBUTE (BLOCK) ONTO P :: V, X
CHPF$ INDEPENDENT, NEW(I)
      DO 10 J = 1, M
CHPF$ INDEPENDENT
      DO 10 I = 1, N
         A(I, J) = CMPLX(DBLE(I), DBLE(-J), KIND(1.0D0))
   10 CONTINUE
      B = CONJG(A) * (0.5D0, 0.25D0)
      FORALL (I = 1:N) V(I) = A(I, 2) + B(I, 3)
      X = (1.0, -1.0)
      X(2:N) = CMPLX(CSHIFT(V(1:N-1), 1))
      PRINT '(5(2F8.3, 1X))', V
      PRINT '(5(2F8.3, 1X))', X
      PRINT '(4(2F8.3, 1X))', B(2, :)
      TOTAL = SUM(B)
      PRINT '(A, 2F10.4)', 'SUM B', TOTAL
      PRINT *, 'SUM A', SUM(A), ' SUM X', SUM(X)
      DO 20 I = 2, N
         V(I) = V(I) * (0.0D0, 1.0D0) + V(I - 1)
   20 CONTINUE
      PRINT '(5(2F9.3, 1X))', V
      END
