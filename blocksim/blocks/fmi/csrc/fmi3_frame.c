/* An FMI 3.0 implementation (model exchange and co-simulation) of a model written against
 * frame.h. Build: gcc -shared -fPIC -I<fmpy c-code> -I<this folder>
 * -DMODEL_SOURCE='"model.c"' fmi3_frame.c fmi_unsupported.c -DFMI_VERSION=3 -lm */
#include "fmi3Functions.h"
#include "frame.h"

#define INST ((Instance *)instance)

static int bad_vr(const fmi3ValueReference vr[], size_t nvr) {
    size_t i;
    for (i = 0; i < nvr; i++)
        if (vr[i] >= NR) return 1;
    return 0;
}

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t n,
                               const fmi3String categories[]) {
    (void)instance; (void)loggingOn; (void)n; (void)categories;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token,
                                          fmi3String resources, fmi3Boolean visible,
                                          fmi3Boolean loggingOn, fmi3InstanceEnvironment env,
                                          fmi3LogMessageCallback log) {
    (void)name; (void)token; (void)resources; (void)visible; (void)loggingOn; (void)env;
    (void)log;
    return (fmi3Instance)frame_new(0);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token,
                                         fmi3String resources, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference required[], size_t nrequired,
                                         fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
                                         fmi3IntermediateUpdateCallback update) {
    (void)name; (void)token; (void)resources; (void)visible; (void)loggingOn;
    (void)eventModeUsed; (void)earlyReturnAllowed; (void)required; (void)nrequired; (void)env;
    (void)log; (void)update;
    return (fmi3Instance)frame_new(1);
}

void fmi3FreeInstance(fmi3Instance instance) { frame_free(INST); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    INST->r[0] = startTime;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    model_calc(INST->r);
    frame_event(INST);
    return fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3Terminate(fmi3Instance instance) {
    (void)instance;
    frame_trace("terminate");
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance) {
    model_start(INST->r);
    INST->next_defined = 0;
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          fmi3Float64 values[], size_t nvalues) {
    size_t i;
    if (nvalues != nvr || bad_vr(vr, nvr)) return fmi3Error;
    model_calc(INST->r);
    for (i = 0; i < nvr; i++) values[i] = INST->r[vr[i]];
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nvalues) {
    size_t i;
    if (nvalues != nvr || bad_vr(vr, nvr)) return fmi3Error;
    for (i = 0; i < nvr; i++)
        if (vr[i] != 0) INST->r[vr[i]] = values[i];
    return fmi3OK;
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *needUpdate,
                                    fmi3Boolean *terminate, fmi3Boolean *nominalsChanged,
                                    fmi3Boolean *valuesChanged, fmi3Boolean *nextDefined,
                                    fmi3Float64 *nextTime) {
    int changed = frame_event(INST);
    *needUpdate = fmi3False;
    *terminate = fmi3False;
    *nominalsChanged = fmi3False;
    *valuesChanged = changed ? fmi3True : fmi3False;
    *nextDefined = INST->next_defined ? fmi3True : fmi3False;
    *nextTime = INST->next_time;
    return fmi3OK;
}

/* Model exchange */
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetPrior,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminate) {
    (void)instance; (void)noSetPrior;
    *enterEventMode = fmi3False;
    *terminate = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    INST->r[0] = time;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 x[], size_t nx) {
    size_t i;
    if (nx != NX) return fmi3Error;
    for (i = 0; i < nx; i++) INST->r[STATE_VR[i]] = x[i];
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 dx[], size_t nx) {
    size_t i;
    if (nx != NX || !model_ok(INST->r)) return fmi3Error;
    model_calc(INST->r);
    for (i = 0; i < nx; i++) dx[i] = INST->r[DER_VR[i]];
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 z[], size_t nz) {
    size_t i;
    if (nz != NZ) return fmi3Error;
    model_calc(INST->r);
    model_indicators(INST->r, INST->z);
    for (i = 0; i < nz; i++) z[i] = INST->z[i];
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 x[], size_t nx) {
    size_t i;
    if (nx != NX) return fmi3Error;
    for (i = 0; i < nx; i++) x[i] = INST->r[STATE_VR[i]];
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nx) {
    size_t i;
    (void)instance;
    for (i = 0; i < nx; i++) nominals[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *n) {
    (void)instance;
    *n = NZ;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *n) {
    (void)instance;
    *n = NX;
    return fmi3OK;
}

/* Co-simulation */
fmi3Status fmi3EnterStepMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 t, fmi3Float64 h,
                      fmi3Boolean noSetPrior, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminate, fmi3Boolean *earlyReturn,
                      fmi3Float64 *lastSuccessfulTime) {
    int ok;
    (void)noSetPrior;
    ok = frame_do_step(INST, t, h);
    *eventHandlingNeeded = fmi3False;
    *terminate = fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = INST->r[0];
    return ok ? fmi3OK : fmi3Error;
}
