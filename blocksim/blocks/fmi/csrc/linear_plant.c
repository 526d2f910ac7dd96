/* A linear MIMO plant x' = A x + B u, y1 = C1 x, y2 = C2 x + D2 u: two states, two inputs,
 * two outputs (y1 strictly proper, y2 with feedthrough), every matrix entry a parameter.
 * Value references (see blocksim/blocks/fmi/models.py, which writes modelDescription.xml):
 * 0 time, 1-2 x, 3-4 der(x), 5-6 u, 7-8 y, 9-12 A, 13-16 B, 17-20 C, 21-22 D2 (row-major). */
#define NR 23
#define NX 2
#define NZ 0

static const unsigned STATE_VR[NX] = {1, 2};
static const unsigned DER_VR[NX] = {3, 4};

static void model_start(double *r) {
    static const double start[NR] = {
        0.0,                    /* time */
        0.0, 0.0, 0.0, 0.0,     /* x1, x2, der(x1), der(x2) */
        0.0, 0.0, 0.0, 0.0,     /* u1, u2, y1, y2 */
        0.0, 1.0, -4.0, -0.8,   /* A */
        0.0, 0.0, 1.0, 0.5,     /* B */
        1.0, 0.0, 0.0, 1.0,     /* C */
        0.0, 0.2                /* D2 */
    };
    int i;
    for (i = 0; i < NR; i++) r[i] = start[i];
}

static void model_calc(double *r) {
    const double *A = r + 9, *B = r + 13, *C = r + 17, *D2 = r + 21;
    const double x1 = r[1], x2 = r[2], u1 = r[5], u2 = r[6];
    r[3] = A[0] * x1 + A[1] * x2 + B[0] * u1 + B[1] * u2;
    r[4] = A[2] * x1 + A[3] * x2 + B[2] * u1 + B[3] * u2;
    r[7] = C[0] * x1 + C[1] * x2;
    r[8] = C[2] * x1 + C[3] * x2 + D2[0] * u1 + D2[1] * u2;
}

static void model_indicators(const double *r, double *z) { (void)r; (void)z; }

static int model_event(double *r, int *next_defined, double *next_time) {
    (void)r;
    *next_defined = 0;
    *next_time = 0.0;
    return 0;
}

static int model_ok(const double *r) { (void)r; return 1; }
