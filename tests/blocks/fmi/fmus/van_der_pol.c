/* Van der Pol's oscillator x0' = x1, x1' = mu (1 - x0^2) x1 - x0, whose damping mu switches
 * between mu and mu2 at time events every `period` seconds (none when period <= 0); the
 * derivatives fail (an FMI error) once t > fail_time. Value references: 0 time, 1 x0,
 * 2 der(x0), 3 x1, 4 der(x1), 5 mu, 6 mu2, 7 period, 8 mu_now (discrete), 9 fail_time. */
#include <math.h>

#define NR 10
#define NX 2
#define NZ 0

static const unsigned STATE_VR[NX] = {1, 3};
static const unsigned DER_VR[NX] = {2, 4};

static void model_start(double *r) {
    r[0] = 0.0;
    r[1] = 2.0;
    r[2] = 0.0;
    r[3] = 0.0;
    r[4] = 0.0;
    r[5] = 1.0;
    r[6] = 3.0;
    r[7] = 2.0;
    r[8] = 1.0;
    r[9] = 1e300;
}

static void model_calc(double *r) {
    r[2] = r[3];
    r[4] = r[8] * (1.0 - r[1] * r[1]) * r[3] - r[1];
}

static void model_indicators(const double *r, double *z) { (void)r; (void)z; }

static int model_event(double *r, int *next_defined, double *next_time) {
    if (r[7] > 0.0) {
        double k = floor(r[0] / r[7] + 1e-9);
        r[8] = fmod(k, 2.0) == 0.0 ? r[5] : r[6];
        *next_defined = 1;
        *next_time = (k + 1.0) * r[7];
    } else {
        r[8] = r[5];
        *next_defined = 0;
        *next_time = 0.0;
    }
    return 0;
}

static int model_ok(const double *r) { return r[0] <= r[9]; }
