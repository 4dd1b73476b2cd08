C     CONJUGATE GRADIENT ON A 1-D LAPLACIAN IN F77 STYLE WITH CHPF$: ALIGN
C     WITH A DISTRIBUTED ARRAY, LABELLED DO LOOPS, AN INDEPENDENT STENCIL
C     LOOP, DOT PRODUCTS, A GOTO OUT OF THE ITERATION LOOP.
      PROGRAM CGSOLV
      INTEGER N, NITER
      PARAMETER (N = 32, NITER = 40)
      DOUBLE PRECISION X(N), B(N), R(N), P(N), Q(N)
      DOUBLE PRECISION ALPHA, BETA, RHO, RHOOLD, PQ, RNORM
      INTEGER I, IT
CHPF$ DISTRIBUTE X(BLOCK)
CHPF$ ALIGN B(I) WITH X(I)
CHPF$ ALIGN R(I) WITH X(I)
CHPF$ ALIGN P(I) WITH X(I)
CHPF$ ALIGN Q(I) WITH X(I)
      DO 5 I = 1, N
         B(I) = 1.0D0
         X(I) = 0.0D0
    5 CONTINUE
      DO 10 I = 1, N
         R(I) = B(I)
         P(I) = R(I)
   10 CONTINUE
      RHO = 0.0D0
      DO 20 I = 1, N
         RHO = RHO + R(I) * R(I)
   20 CONTINUE
      DO 100 IT = 1, NITER
CHPF$ INDEPENDENT
         DO 30 I = 2, N - 1
            Q(I) = 2.0D0 * P(I) - P(I - 1) - P(I + 1)
   30    CONTINUE
         Q(1) = 2.0D0 * P(1) - P(2)
         Q(N) = 2.0D0 * P(N) - P(N - 1)
         PQ = 0.0D0
         DO 40 I = 1, N
            PQ = PQ + P(I) * Q(I)
   40    CONTINUE
         ALPHA = RHO / PQ
         DO 50 I = 1, N
            X(I) = X(I) + ALPHA * P(I)
            R(I) = R(I) - ALPHA * Q(I)
   50    CONTINUE
         RHOOLD = RHO
         RHO = DOT_PRODUCT(R, R)
         BETA = RHO / RHOOLD
         DO 60 I = 1, N
            P(I) = R(I) + BETA * P(I)
   60    CONTINUE
         RNORM = SQRT(RHO)
         IF (RNORM .LT. 1.0D-10) GOTO 200
  100 CONTINUE
  200 CONTINUE
      WRITE (*, 300) IT, RNORM
  300 FORMAT (' IT =', I4, ' RNORM =', E12.4)
      WRITE (*, 310) (X(I), I = 1, N, 4)
  310 FORMAT (4F14.6)
      STOP
      END
