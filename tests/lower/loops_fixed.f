C     Loops over distributed arrays in fixed form with CHPF$: INDEPENDENT
C     DO nests sharing a terminal label, a REDUCTION, a masked update in
C     an IF block inside a DO loop, and array assignments.
      PROGRAM LOOPSF
      IMPLICIT NONE
      INTEGER N, M
      PARAMETER (N = 9, M = 7)
      REAL X(N, M), Y(N, M), V(N)
      INTEGER I, J
      REAL TOTAL
CHPF$ PROCESSORS P(2, 2)
CHPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO P :: X, Y
CHPF$ DISTRIBUTE V(CYCLIC)
CHPF$ INDEPENDENT, NEW(I)
      DO 10 J = 1, M
CHPF$ INDEPENDENT
      DO 10 I = 1, N
         X(I, J) = REAL(I * J)
   10 CONTINUE
      DO 20 J = 1, M
      DO 20 I = 1, N
   20 Y(I, J) = X(I, J) + REAL(J)
      TOTAL = 0.0
CHPF$ INDEPENDENT, REDUCTION(TOTAL)
      DO 30 I = 1, N
         TOTAL = TOTAL + Y(I, 1)
   30 CONTINUE
      PRINT *, 'TOTAL', TOTAL
      DO 40 I = 1, N
         IF (MOD(I, 2) .EQ. 0) THEN
            V(I) = X(I, 2)
         ELSE
            V(I) = -Y(I, 3)
         END IF
   40 CONTINUE
C     A labelled loop around a FORALL, ended by a statement that reads and
C     writes distributed data (a block DO in the lowered program).
      DO 60 J = 1, 3
      FORALL (I = 1:N) V(I) = V(I) + REAL(J)
   60 X(J, 1) = V(J)
C     A replicated nest sharing its terminal label (a block DO nest in the
C     lowered program: F2018 deleted shared termination).
      DO 50 J = 1, M
      DO 50 I = 1, N
      IF (I .EQ. J) X(I, J) = 0.5 * X(I, J)
   50 CONTINUE
      Y = X * 2.0 + Y
      WHERE (X .GT. 20.0) Y = 0.0D0
      WHERE (Y .GT. 0.0)
         X = X / Y
      ELSEWHERE
         X = -1
      END WHERE
      X(1:N:2, 1) = V(1:N:2)
      PRINT 100, V
      PRINT 100, X(:, 1)
      PRINT 100, (Y(I, M), I = 1, N)
  100 FORMAT (9F7.1)
      PRINT *, 'I, J:', I, J
      IF (I .GT. 0) STOP
      PRINT *, 'NOT REACHED'
      END
