/* What the FMI frames (fmi2_frame.c, fmi3_frame.c) share: the instance of a model and its
 * evaluation. A model source (compiled in through -DMODEL_SOURCE="file.c") defines, before
 * this file's functions are used:
 *
 *   NR            number of real (Float64) variables; value reference k is r[k], r[0] is time
 *   NX, NZ        numbers of continuous states and event indicators
 *   STATE_VR[NX]  value references of the states, DER_VR[NX] of their derivatives
 *   model_start(r)               start values of every variable
 *   model_calc(r)                derivatives and outputs from time, states, inputs, parameters
 *   model_indicators(r, z)       event indicators z[NZ]
 *   model_event(r, &def, &next)  event update at time r[0]: returns 1 when it changed a state;
 *                                sets whether a next time event is defined and its time [s]
 *   model_ok(r)                  0 when the model cannot be evaluated (an error is returned)
 *
 * Instantiate, terminate and free append a line to the file named by the environment
 * variable BLOCKSIM_FMU_LOG, when it is set: tests count them.
 */
#ifndef BLOCKSIM_FMU_FRAME_H
#define BLOCKSIM_FMU_FRAME_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include MODEL_SOURCE

#define NZ_ALLOC (NZ > 0 ? NZ : 1)

typedef struct {
    double r[NR];
    double z[NZ_ALLOC];
    int next_defined;
    double next_time;
    int cosim;
} Instance;

static void frame_trace(const char *what) {
    const char *path = getenv("BLOCKSIM_FMU_LOG");
    if (path == NULL || path[0] == '\0') return;
    FILE *f = fopen(path, "a");
    if (f == NULL) return;
    fprintf(f, "%s\n", what);
    fclose(f);
}

static Instance *frame_new(int cosim) {
    Instance *m = (Instance *)calloc(1, sizeof(Instance));
    if (m == NULL) return NULL;
    model_start(m->r);
    m->cosim = cosim;
    frame_trace("instantiate");
    return m;
}

static void frame_free(Instance *m) {
    if (m == NULL) return;
    frame_trace("free");
    free(m);
}

/* The event iteration after initialisation or at an event: returns 1 when states changed. */
static int frame_event(Instance *m) {
    int changed = model_event(m->r, &m->next_defined, &m->next_time);
    model_calc(m->r);
    return changed;
}

/* One RK4 step of the states by h [s] (co-simulation), inputs held. */
static void frame_rk4(Instance *m, double h) {
    double x0[NX], k[4][NX];
    double t0 = m->r[0];
    int i, s;
    for (i = 0; i < NX; i++) x0[i] = m->r[STATE_VR[i]];
    for (s = 0; s < 4; s++) {
        double c = (s == 0) ? 0.0 : (s == 3 ? 1.0 : 0.5);
        m->r[0] = t0 + c * h;
        for (i = 0; i < NX; i++) m->r[STATE_VR[i]] = x0[i] + (s == 0 ? 0.0 : c * h * k[s - 1][i]);
        model_calc(m->r);
        for (i = 0; i < NX; i++) k[s][i] = m->r[DER_VR[i]];
    }
    m->r[0] = t0 + h;
    for (i = 0; i < NX; i++)
        m->r[STATE_VR[i]] = x0[i] + h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    model_calc(m->r);
}

/* Co-simulation: advance from t to t + h in RK4 sub-steps of at most CS_SUBSTEP [s], with the
 * time events of the model handled at their instants (state events are not located). */
#ifndef CS_SUBSTEP
#define CS_SUBSTEP 1e-3
#endif
static int frame_do_step(Instance *m, double t, double h) {
    double t_end = t + h;
    m->r[0] = t;
    model_calc(m->r);
    while (m->r[0] < t_end - 1e-12 * (1.0 + fabs(t_end))) {
        double stop = t_end;
        double span, dt;
        int n, j;
        if (m->next_defined && m->next_time > m->r[0] && m->next_time < stop) stop = m->next_time;
        span = stop - m->r[0];
        n = (int)ceil(span / CS_SUBSTEP - 1e-9);
        if (n < 1) n = 1;
        dt = span / n;
        for (j = 0; j < n; j++) frame_rk4(m, dt);
        m->r[0] = stop;
        if (!model_ok(m->r)) return 0;
        if (m->next_defined && stop >= m->next_time) frame_event(m);
    }
    m->r[0] = t_end;
    model_calc(m->r);
    return 1;
}

#endif
