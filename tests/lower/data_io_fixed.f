C     Data in and out of distributed arrays in fixed form with CHPF$ and
C     F77 habits: element reads and writes in labelled DO loops, PRINT of
C     elements and whole arrays, a dot product over sections.
      PROGRAM DATAIO
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 12)
      DOUBLE PRECISION A(N), B(N), S
      INTEGER IX(N), I, J
CHPF$ PROCESSORS PROCS(4)
CHPF$ DISTRIBUTE A(BLOCK) ONTO PROCS
CHPF$ ALIGN B(I) WITH A(I)
CHPF$ DISTRIBUTE IX(CYCLIC) ONTO PROCS
      DO 10 I = 1, N
         A(I) = DBLE(I)
         IX(I) = N + 1 - I
   10 CONTINUE
      DO 20 I = 1, N
         B(IX(I)) = A(I) * 3.0D0
   20 CONTINUE
C     A loop-carried dependence: runs on replicated copies.
      DO 30 I = 2, N
         A(I) = A(I - 1) + B(I)
   30 CONTINUE
      WRITE (*, 100) (A(I), I = 1, N)
  100 FORMAT (4F10.1)
      S = 0.0D0
      DO 40 I = 1, N, 3
         S = S + A(I) * B(I)
   40 CONTINUE
      PRINT *, 'S =', S
      PRINT *, 'DOT =', SUM(A(1:N:2) * B(1:N:2))
      J = IX(3)
      IF (A(J) .GT. 100.0D0) THEN
         PRINT *, 'A(', J, ') IS LARGE:', A(J)
      END IF
      PRINT 200, IX
  200 FORMAT (12I4)
C     A branch out of a loop that runs on replicated copies.
      DO 50 I = 1, N
         B(I) = B(I) + 1.0D0
         IF (B(I) .GT. 20.0D0) GOTO 60
   50 CONTINUE
   60 PRINT *, 'STOPPED AT', I, B(I), SUM(B)
C     The same from the labelled end of the loop.
      DO 70 I = 1, N
         A(I) = A(I) - 1.0D0
   70 IF (A(I) .LT. 50.0D0) GOTO 80
   80 PRINT *, 'A AT', I, A(I)
      END
