/* A ball bouncing on the floor: h' = v, v' = -g; when h reaches 0 going down the event update
 * sets v <- -e v and h to the smallest positive double (so the indicator z = h leaves zero
 * without an event). Value references: 0 time, 1 h, 2 der(h), 3 v, 4 der(v), 5 g, 6 e. */
#include <float.h>

#define NR 7
#define NX 2
#define NZ 1

static const unsigned STATE_VR[NX] = {1, 3};
static const unsigned DER_VR[NX] = {2, 4};

static void model_start(double *r) {
    r[0] = 0.0;
    r[1] = 1.0;
    r[2] = 0.0;
    r[3] = 0.0;
    r[4] = -9.81;
    r[5] = 9.81;
    r[6] = 0.7;
}

static void model_calc(double *r) {
    r[2] = r[3];
    r[4] = -r[5];
}

static void model_indicators(const double *r, double *z) { z[0] = r[1]; }

static int model_event(double *r, int *next_defined, double *next_time) {
    *next_defined = 0;
    *next_time = 0.0;
    if (r[1] <= 0.0 && r[3] < 0.0) {
        r[1] = DBL_MIN;
        r[3] = -r[6] * r[3];
        return 1;
    }
    return 0;
}

static int model_ok(const double *r) { (void)r; return 1; }
