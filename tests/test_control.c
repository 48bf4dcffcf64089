/* test_control.c: signatures, control flow and resource variables against LiteRT (the op
 * models control_*: tests/op_models/README.md says how their files are named). A signature
 * loads by name with its inputs and outputs in its order and names; IF and WHILE run their
 * subgraphs; a streaming model keeps its state over 10 calls, and a reset gives what a fresh
 * interpreter gives. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *data_path(const char *file) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/op_models/%s", harness_data_dir(), file);
    return path;
}

/* Sets every input from NAME<infix>in<i>.f32, runs, and compares every output with
 * NAME<infix>out<i>.f32. */
static void run_and_compare(vki_graph *g, const vki_model *m, const char *name, const char *infix,
                            double tol) {
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        char suffix[64];
        snprintf(suffix, sizeof suffix, "%sin%d", infix, i);
        float *in = harness_read_data_f32("op_models", name, suffix, t.element_count);
        cr_assert_eq(vki_graph_set_input(g, i, in, t.element_count * sizeof(float)), VKI_OK, "%s",
                     vki_last_error());
        free(in);
    }
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s%s: %s", name, infix, vki_last_error());
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        char suffix[64];
        snprintf(suffix, sizeof suffix, "%sout%d", infix, i);
        float *want = harness_read_data_f32("op_models", name, suffix, t.element_count);
        float *got = malloc(t.element_count * sizeof(float));
        cr_assert(got);
        cr_assert_eq(vki_graph_get_output(g, i, got, t.element_count * sizeof(float)), VKI_OK);
        double worst = harness_scaled_error(got, want, t.element_count);
        cr_assert_leq(worst, tol, "%s%sout%d ('%s'): error %g > %g", name, infix, i, t.name, worst, tol);
        free(want);
        free(got);
    }
}

static void check_model(const char *name, const char *signature, const char *infix,
                        vki_precision precision, double tol) {
    char file[256];
    snprintf(file, sizeof file, "%s.tflite", name);
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_signature_file(data_path(file), signature, &m), VKI_OK, "%s",
                 vki_last_error());
    vki_graph *g = NULL;
    vki_graph_options o = {.precision = precision};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    run_and_compare(g, m, name, infix, tol);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(control, signatures_by_name) {
    const char *name = "control_signature_encode_decode";
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_signature_file(data_path("control_signature_encode_decode.tflite"),
                                               "encode", &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_signature_count(m), 2);
    cr_assert_str_eq(vki_model_signature_name(m, 0), "encode");
    cr_assert_str_eq(vki_model_signature_name(m, 1), "decode");
    cr_assert_str_eq(vki_model_loaded_signature(m), "encode");
    /* The signature's names, not the tensors'; found by name. */
    const char *ins[] = {"scale", "offset", "features"}, *outs[] = {"peak", "latent", "energy"};
    for (int i = 0; i < 3; i++) {
        int k = vki_model_input_index(m, ins[i]);
        cr_assert_geq(k, 0, "input '%s'", ins[i]);
        vki_tensor_info t;
        vki_model_input_info(m, k, &t);
        cr_assert_str_eq(t.name, ins[i]);
        cr_assert_geq(vki_model_output_index(m, outs[i]), 0, "output '%s'", outs[i]);
    }
    cr_assert_eq(vki_model_input_index(m, "enc_scale"), -1);
    cr_assert_eq(vki_model_input_index(m, NULL), -1);
    vki_model_destroy(m);
    check_model(name, "encode", "sig_encode.", VKI_PRECISION_FP32, 1e-5);
    check_model(name, "decode", "sig_decode.", VKI_PRECISION_FP32, 1e-5);
    check_model(name, "decode", "sig_decode.", VKI_PRECISION_FP16, 2e-2);
    cr_assert_eq(vki_model_load_signature_file(data_path("control_signature_encode_decode.tflite"),
                                               "serving_default", &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "no signature 'serving_default' (the model has 'encode', "
                     "'decode')"), "%s", vki_last_error());
}

Test(control, while_loops) {
    const char *names[] = {"control_while_counter", "control_while_data_few", "control_while_data_many"};
    for (int i = 0; i < 3; i++) {
        check_model(names[i], NULL, "", VKI_PRECISION_FP32, 1e-5);
        check_model(names[i], NULL, "", VKI_PRECISION_FP16, 2e-2);
    }
}

Test(control, if_branches) {
    check_model("control_if_then", NULL, "", VKI_PRECISION_FP32, 1e-5);
    check_model("control_if_else", NULL, "", VKI_PRECISION_FP32, 1e-5);
    check_model("control_if_then", NULL, "", VKI_PRECISION_FP16, 2e-2);
}

/* State over 10 calls of one graph; a reset (and a fresh graph) start again from the
 * CALL_ONCE initialiser's value. */
Test(control, variables_over_calls) {
    const char *name = "control_variable_streaming";
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(data_path("control_variable_streaming.tflite"), &m), VKI_OK,
                 "%s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    for (int k = 0; k < 10; k++) {
        char infix[32];
        snprintf(infix, sizeof infix, "call%d.", k);
        run_and_compare(g, m, name, infix, 1e-5);
    }
    cr_assert_eq(vki_graph_reset_variables(g), VKI_OK);
    run_and_compare(g, m, name, "reset.", 1e-5);
    vki_graph_destroy(g);
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    run_and_compare(g, m, name, "reset.", 1e-5);
    cr_assert_eq(vki_graph_reset_variables(NULL), VKI_ERROR_INVALID_ARGUMENT);
    vki_graph_destroy(g);
    /* Control flow and variables have no C reference. */
    float in[8] = {0}, out0[5], out1[32];
    const float *ins[1] = {in};
    float *outs[2] = {out0, out1};
    cr_assert_eq(vki_model_reference_run(m, ins, outs), VKI_ERROR_UNSUPPORTED_OP);
    cr_assert(strstr(vki_last_error(), "has no reference run"), "%s", vki_last_error());
    vki_model_destroy(m);
}

/* A WHILE whose subgraphs were never loaded (a model built by hand) is refused at graph
 * creation, naming the op and the subgraph. */
Test(control, unloaded_subgraph) {
    vki_model *m = vki_model_new("hand_while");
    int x = harness_tensor_nd(m, 1, (int[]){3}), y = harness_tensor_nd(m, 1, (int[]){3});
    vki_op *op = vki_model_add_op(m, VKI_OP_WHILE, 1, &x, 1, &y);
    cr_assert(op);
    op->opt.control.subgraph[0] = 1;
    op->opt.control.subgraph[1] = 2;
    cr_assert(vki_model_set_io(m, 1, &x, 1, &y));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "op 0 WHILE: subgraph 1 is not loaded"), "%s", vki_last_error());
    cr_assert_null(g);
    vki_model_destroy(m);
}

/* The recurrent CPU ops (LSTM, SVDF, RNN and their sequence and bidirectional forms) keep
 * their state in variable tensors: every rnn_* op model runs its calls in one graph against
 * TFLite's outputs per call, then a reset and call `reset` again. (TFLite's classic
 * interpreter is their oracle: LiteRT refuses variable tensors; specs_recurrent.py.) */
Test(control, recurrent_ops_over_calls) {
    char path[1024];
    snprintf(path, sizeof path, "%s/op_models/manifest.txt", harness_data_dir());
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    char line[4096];
    int models = 0;
    while (fgets(line, sizeof line, f)) {
        char name[128];
        int calls = 0, reset = -1;
        const char *c = strstr(line, " calls="), *r = strstr(line, " reset=");
        if (strncmp(line, "rnn_", 4) || sscanf(line, "%127s", name) != 1 || !c || !r) continue;
        calls = atoi(c + 7);
        reset = atoi(r + 7);
        snprintf(path, sizeof path, "%s/op_models/%s.tflite", harness_data_dir(), name);
        vki_model *m = NULL;
        cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
        for (int k = 0; k < calls; k++) {
            char infix[32];
            snprintf(infix, sizeof infix, "call%d.", k);
            run_and_compare(g, m, name, infix, 1e-5);
        }
        cr_assert_eq(vki_graph_reset_variables(g), VKI_OK);
        run_and_compare(g, m, name, "reset.", 1e-5);
        (void)reset;
        vki_graph_destroy(g);
        vki_model_destroy(m);
        models++;
    }
    fclose(f);
    cr_assert_geq(models, 10, "only %d rnn_* models in the manifest", models);
}
