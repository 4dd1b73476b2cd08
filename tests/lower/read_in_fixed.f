C     READ in fixed form with CHPF$: a count, then elements of a
C     distributed array one READ per element in a labelled DO loop.
      PROGRAM READF
      INTEGER N, I
      DOUBLE PRECISION A(10), S
      INTEGER K(6)
CHPF$ DISTRIBUTE A(CYCLIC(3))
CHPF$ ALIGN K(I) WITH A(I)
      READ (5, *) N
      READ (5, *)
      DO 10 I = 1, N
         READ (5, *) K(I)
   10 CONTINUE
      S = 0.0D0
      DO 20 I = 1, 10
         A(I) = DBLE(I)
   20 CONTINUE
      DO 30 I = 1, N
         S = S + A(I) * DBLE(K(I))
   30 CONTINUE
      WRITE (6, 100) N, S
  100 FORMAT (' N =', I3, ' S =', F10.2)
      END
