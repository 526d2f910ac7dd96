/* An FMI 2.0 implementation (model exchange and co-simulation) of a model written against
 * frame.h. Build: gcc -shared -fPIC -I<fmpy c-code> -I<this folder>
 * -DMODEL_SOURCE='"model.c"' fmi2_frame.c fmi_unsupported.c -DFMI_VERSION=2 -lm */
#include "fmi2Functions.h"
#include "frame.h"

#define INST ((Instance *)c)

static int bad_vr(const fmi2ValueReference vr[], size_t nvr) {
    size_t i;
    for (i = 0; i < nvr; i++)
        if (vr[i] >= NR) return 1;
    return 0;
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t n,
                               const fmi2String categories[]) {
    (void)c; (void)loggingOn; (void)n; (void)categories;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                              fmi2String resources, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)name; (void)guid; (void)resources; (void)functions; (void)visible; (void)loggingOn;
    return (fmi2Component)frame_new(type == fmi2CoSimulation);
}

void fmi2FreeInstance(fmi2Component c) { frame_free(INST); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    INST->r[0] = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    model_calc(INST->r);
    frame_event(INST);
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) { (void)c; frame_trace("terminate"); return fmi2OK; }

fmi2Status fmi2Reset(fmi2Component c) {
    model_start(INST->r);
    INST->next_defined = 0;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    size_t i;
    if (bad_vr(vr, nvr)) return fmi2Error;
    model_calc(INST->r);
    for (i = 0; i < nvr; i++) value[i] = INST->r[vr[i]];
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    size_t i;
    if (bad_vr(vr, nvr)) return fmi2Error;
    for (i = 0; i < nvr; i++) INST->r[vr[i]] = value[i];
    return fmi2OK;
}

/* Model exchange */
fmi2Status fmi2EnterEventMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    int changed = frame_event(INST);
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
    info->nextEventTimeDefined = INST->next_defined ? fmi2True : fmi2False;
    info->nextEventTime = INST->next_time;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation) {
    (void)c; (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) { INST->r[0] = time; return fmi2OK; }

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
    size_t i;
    if (nx != NX) return fmi2Error;
    for (i = 0; i < nx; i++) INST->r[STATE_VR[i]] = x[i];
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
    size_t i;
    if (nx != NX || !model_ok(INST->r)) return fmi2Error;
    model_calc(INST->r);
    for (i = 0; i < nx; i++) derivatives[i] = INST->r[DER_VR[i]];
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t nz) {
    size_t i;
    if (nz != NZ) return fmi2Error;
    model_calc(INST->r);
    model_indicators(INST->r, INST->z);
    for (i = 0; i < nz; i++) z[i] = INST->z[i];
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
    size_t i;
    if (nx != NX) return fmi2Error;
    for (i = 0; i < nx; i++) x[i] = INST->r[STATE_VR[i]];
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
    size_t i;
    (void)c;
    for (i = 0; i < nx; i++) x_nominal[i] = 1.0;
    return fmi2OK;
}

/* Co-simulation */
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint;
    return frame_do_step(INST, currentCommunicationPoint, communicationStepSize) ? fmi2OK
                                                                                 : fmi2Error;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
    if (s != fmi2LastSuccessfulTime) return fmi2Discard;
    *value = INST->r[0];
    return fmi2OK;
}
