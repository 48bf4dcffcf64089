"""specs_recurrent.py: op models of the recurrent ops vkinfer runs on the CPU (engine/ops/
cpu_rnn_lstm.c, cpu_rnn.c): LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM,
SVDF, RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN, float32, against
LiteRT. A module of specs.MODULES (seeded by name; see make.py).

Each op keeps its state in variable tensors ("is_variable": no data, zeros at the start), so
every model here is a `calls` model: make.py runs g.calls calls in one interpreter (the state
carried from call to call) and stores NAME.call<k>.in<i>.f32 / .out<i>.f32, then call
g.reset_from's inputs in a fresh interpreter (NAME.reset.*: what a graph reset gives). Each
model has a GPU op before the recurrent op (its input is computed) and after it (its output
is read by one), so the op runs between two GPU segments.

Shapes are small and odd (cells, inputs and units of 3 to 9, batch 1 to 3, 2 to 5 steps) and
weights stay small, so that the gates do not saturate and every path shows in the outputs:
CIFG, peepholes, projection with and without bias, layer norm, cell and projection clipping
(clip values inside the values' range), time-major and batch-major sequences, merged and
separate bidirectional outputs, the fused activations (TANH, RELU, RELU6, RELU_N1_TO_1,
NONE). rnn_uslstm_act_none pins TFLite's activation-NONE quirk (see cpu_rnn_lstm.c): its
input's third step is all zeros (a MUL by a mask), which changes what the cell gate holds
(without the quirk the outputs are 0.1 off).

LiteRT.js (2.5.3, make.py's runner) refuses any model with a variable tensor at load
("Variable tensors not yet supported", litert/core/model/model_load.cc), so make.py cannot
run these models. This file's __main__ runs make.py for them (`--only rnn_`: the same models,
seeds and files) with TFLite's classic interpreter instead, the wasm build that the npm
package @tensorflow/tfjs-tflite (0.0.1-alpha.10) ships, through the small runner below:

    npm pack @tensorflow/tfjs-tflite@0.0.1-alpha.10 && tar xzf tensorflow-tfjs-tflite-*.tgz
    python3 tests/op_models/specs_recurrent.py package [OUT_DIR]

(`package` is the unpacked package: its wasm/tflite_web_api_cc.js; a node_modules directory
holding @tensorflow/tfjs-tflite works too). Its kernels are those of TensorFlow Lite's float
path as LiteRT has them still, the activation-NONE quirk included.
"""
import os
import subprocess
import sys
import tempfile

LITERT = False      # make.py: written only by main() below


def var(g, shape, name):
    """A variable tensor (an op's state): no data, zeros until the op writes it."""
    t = g.tensor(shape, name=name)
    g.tensors[t]['is_variable'] = True
    return t


def slot(t):
    return -1 if t is None else t


def lstm_direction(g, I, C, O, cifg=False, peephole=False, proj=False, proj_bias=False,
                   ln=False, scale=0.5):
    """One direction's 17 weight slots (input-to-gate 4, recurrent 4, peephole 3, bias 4,
    projection weights and bias) and the 4 layer norm slots, as tensor indices or None."""
    wx = [None if cifg and k == 0 else g.const([C, I], -scale, scale) for k in range(4)]
    wr = [None if cifg and k == 0 else g.const([C, O], -scale, scale) for k in range(4)]
    peep = [None if (cifg and k == 0) or not peephole else g.const([C], -scale, scale)
            for k in range(3)]
    # The forget gate's bias leans positive, as trained LSTMs' do.
    bias = [None if cifg and k == 0 else g.const([C], 0.3, 1.0) if k == 1 else
            g.const([C], -0.3, 0.3) for k in range(4)]
    pw = g.const([O, C], -scale, scale) if proj else None
    pb = g.const([O], -0.2, 0.2) if proj and proj_bias else None
    lns = [None if (cifg and k == 0) or not ln else g.const([C], 0.5, 1.5) for k in range(4)]
    return wx + wr + peep + bias + [pw, pb], lns


def gpu_in(g, shape, lo=-1.0, hi=1.0):
    """A graph input through a GPU op (MUL by a constant): the recurrent op's input."""
    x = g.input(shape, lo, hi)
    return g.op('MUL', [x, g.const([shape[-1]], 0.5, 1.5)], shape)


def gpu_out(g, y, shape):
    """The recurrent op's output read by a GPU op (ADD of a constant, then TANH) and output;
    the op's output itself is an output too."""
    g.output(g.op('TANH', [g.op('ADD', [y, g.const([shape[-1]], -0.5, 0.5)], shape)], shape))
    g.output(y)


# ---- LSTM ------------------------------------------------------------------------------------

def lstm(B, I, C, O, calls, reset, layer_norm=False, **kw):
    """LSTM (the full kernel): x [B, I] from a GPU op, 24 inputs (layer norm slots given
    with layer_norm), output [B, O] read by GPU ops."""
    options = {k: kw.pop(k) for k in ('activation', 'cell_clip', 'proj_clip') if k in kw}

    def build(g):
        x = gpu_in(g, [B, I])
        w, lns = lstm_direction(g, I, C, O, ln=layer_norm, **kw)
        h, c = var(g, [B, O], 'output_state'), var(g, [B, C], 'cell_state')
        inputs = [x] + [slot(t) for t in w] + [h, c] + [slot(t) for t in lns]
        y = g.op('LSTM', inputs, [B, O], **options)
        gpu_out(g, y, [B, O])
        g.calls, g.reset_from = calls, reset
    return build


def uslstm(shape, time_major, C, O, calls, reset, layer_norm=False, zero_step=None, **kw):
    """UNIDIRECTIONAL_SEQUENCE_LSTM on x of `shape` ([T, B, I] time-major, else [B, T, I]);
    zero_step: that step of the input is all zeros (a MUL by a 0/1 mask)."""
    options = {k: kw.pop(k) for k in ('activation', 'cell_clip', 'proj_clip') if k in kw}
    I = shape[-1]
    out = shape[:-1] + [O]

    def build(g):
        x = gpu_in(g, shape)
        if zero_step is not None:
            T = shape[0] if time_major else shape[1]
            mask = [0.0 if t == zero_step else 1.0 for t in range(T)]
            mshape = [T, 1, 1] if time_major else [1, T, 1]
            x = g.op('MUL', [x, g.tensor(mshape, data=mask)], shape)
        w, lns = lstm_direction(g, I, C, O, ln=layer_norm, **kw)
        B = shape[1] if time_major else shape[0]
        h, c = var(g, [B, O], 'output_state'), var(g, [B, C], 'cell_state')
        inputs = [x] + [slot(t) for t in w] + [h, c] + [slot(t) for t in lns]
        y = g.op('UNIDIRECTIONAL_SEQUENCE_LSTM', inputs, out, time_major=time_major, **options)
        gpu_out(g, y, out)
        g.calls, g.reset_from = calls, reset
    return build


def bslstm(shape, time_major, merge, fw, bw, calls, reset, **options):
    """BIDIRECTIONAL_SEQUENCE_LSTM: fw and bw are (C, O, keyword arguments of
    lstm_direction); no aux input (inputs 39-47 omitted)."""
    I = shape[-1]
    B = shape[1] if time_major else shape[0]

    def build(g):
        x = gpu_in(g, shape)
        fw_w, _ = lstm_direction(g, I, fw[0], fw[1], **fw[2])
        bw_w, _ = lstm_direction(g, I, bw[0], bw[1], **bw[2])
        states = [var(g, [B, fw[1]], 'fw_output_state'), var(g, [B, fw[0]], 'fw_cell_state'),
                  var(g, [B, bw[1]], 'bw_output_state'), var(g, [B, bw[0]], 'bw_cell_state')]
        inputs = [x] + [slot(t) for t in fw_w + bw_w] + states + [-1] * 9
        if merge:
            out = shape[:-1] + [fw[1] + bw[1]]
            y = g.op('BIDIRECTIONAL_SEQUENCE_LSTM', inputs, out, time_major=time_major,
                     merge_outputs=True, **options)
            gpu_out(g, y, out)
        else:
            outs = [shape[:-1] + [fw[1]], shape[:-1] + [bw[1]]]
            yf, yb = g.op('BIDIRECTIONAL_SEQUENCE_LSTM', inputs, outs, time_major=time_major,
                          merge_outputs=False, **options)
            gpu_out(g, yf, outs[0])
            gpu_out(g, yb, outs[1])
        g.calls, g.reset_from = calls, reset
    return build


# ---- SVDF --------------------------------------------------------------------------------

def svdf_layer(g, x, B, I, F, M, rank, bias=True, activation='RELU', name='state'):
    U = F // rank
    wf = g.const([F, I], -0.5, 0.5)
    wt = g.const([F, M], -0.5, 0.5)
    b = g.const([U], -0.2, 0.2) if bias else -1
    state = var(g, [B, M * F], name)
    return g.op('SVDF', [x, wf, wt, b, state], [B, U], rank=rank, activation=activation)


def svdf_keyword_spotter(g):
    """A keyword-spotting stack over 10 frames: a frame [1, 40] scaled (MUL), SVDF (32
    filters, memory 8, rank 1, RELU), SVDF (24 filters, memory 5, rank 2, RELU), then
    FULLY_CONNECTED and SOFTMAX on the GPU; outputs the scores and both SVDFs' outputs."""
    x = gpu_in(g, [1, 40])
    a = svdf_layer(g, x, 1, 40, 32, 8, 1, name='state1')
    b = svdf_layer(g, a, 1, 32, 24, 5, 2, name='state2')
    logits = g.op('FULLY_CONNECTED', [b, g.const([6, 12], -0.6, 0.6), g.const([6], -0.1, 0.1)],
                  [1, 6])
    g.output(g.op('SOFTMAX', [logits], [1, 6], beta=1.0))
    g.output(a)
    g.output(b)
    g.calls, g.reset_from = 10, 4


def svdf(B, I, F, M, rank, bias, activation, calls, reset):
    def build(g):
        x = gpu_in(g, [B, I])
        y = svdf_layer(g, x, B, I, F, M, rank, bias, activation)
        gpu_out(g, y, [B, F // rank])
        g.calls, g.reset_from = calls, reset
    return build


# ---- RNN -----------------------------------------------------------------------------------

def rnn_weights(g, I, U):
    return [g.const([U, I], -0.6, 0.6), g.const([U, U], -0.5, 0.5), g.const([U], -0.3, 0.3)]


def rnn(B, I, U, activation, calls, reset):
    def build(g):
        x = gpu_in(g, [B, I])
        y = g.op('RNN', [x] + rnn_weights(g, I, U) + [var(g, [B, U], 'hidden_state')], [B, U],
                 activation=activation)
        gpu_out(g, y, [B, U])
        g.calls, g.reset_from = calls, reset
    return build


def usrnn(shape, time_major, U, activation, calls, reset):
    out = shape[:-1] + [U]

    def build(g):
        x = gpu_in(g, shape)
        B = shape[1] if time_major else shape[0]
        y = g.op('UNIDIRECTIONAL_SEQUENCE_RNN',
                 [x] + rnn_weights(g, shape[-1], U) + [var(g, [B, U], 'hidden_state')], out,
                 time_major=time_major, activation=activation)
        gpu_out(g, y, out)
        g.calls, g.reset_from = calls, reset
    return build


def bsrnn(shape, time_major, merge, U_fw, U_bw, activation, calls, reset):
    I = shape[-1]
    B = shape[1] if time_major else shape[0]

    def build(g):
        x = gpu_in(g, shape)
        inputs = ([x] + rnn_weights(g, I, U_fw) + [var(g, [B, U_fw], 'fw_hidden_state')] +
                  rnn_weights(g, I, U_bw) + [var(g, [B, U_bw], 'bw_hidden_state')] + [-1] * 3)
        if merge:
            out = shape[:-1] + [U_fw + U_bw]
            y = g.op('BIDIRECTIONAL_SEQUENCE_RNN', inputs, out, time_major=time_major,
                     merge_outputs=True, activation=activation)
            gpu_out(g, y, out)
        else:
            outs = [shape[:-1] + [U_fw], shape[:-1] + [U_bw]]
            yf, yb = g.op('BIDIRECTIONAL_SEQUENCE_RNN', inputs, outs, time_major=time_major,
                          merge_outputs=False, activation=activation)
            gpu_out(g, yf, outs[0])
            gpu_out(g, yb, outs[1])
        g.calls, g.reset_from = calls, reset
    return build


MODELS = [
    # LSTM: peepholes, projection with bias, both clips; 5 calls.
    ('rnn_lstm_peephole_proj_clip', lstm(2, 6, 7, 5, 5, 2, peephole=True, proj=True,
                                         proj_bias=True, activation='TANH', cell_clip=0.3,
                                         proj_clip=0.15)),
    # LSTM: CIFG with layer norm, batch 3, RELU6 as the cell activation.
    ('rnn_lstm_cifg_layer_norm', lstm(3, 5, 6, 6, 4, 1, cifg=True, layer_norm=True,
                                      activation='RELU6')),
    ('rnn_uslstm_time_major', uslstm([5, 2, 7], True, 8, 8, 3, 1, activation='TANH')),
    ('rnn_uslstm_batch_major_full', uslstm([3, 4, 5], False, 6, 4, 3, 2, peephole=True, proj=True,
                                           proj_bias=False, layer_norm=True, activation='TANH',
                                           cell_clip=0.5, proj_clip=0.2)),
    ('rnn_uslstm_cifg_peephole', uslstm([4, 1, 9], True, 5, 3, 3, 1, cifg=True, peephole=True,
                                        proj=True, proj_bias=True, activation='RELU_N1_TO_1')),
    ('rnn_uslstm_act_none', uslstm([4, 2, 5], True, 6, 6, 2, 1, zero_step=2, scale=0.4,
                                   activation='NONE')),
    ('rnn_uslstm_act_none_batch_major', uslstm([2, 4, 5], False, 5, 5, 2, 1, zero_step=1,
                                               scale=0.4, activation='NONE')),
    # Bidirectional LSTMs: TFLite wants both directions of the same sizes.
    ('rnn_bslstm_merge', bslstm([4, 2, 5], True, True, (5, 3, {'proj': True}),
                                (5, 3, {'proj': True, 'proj_bias': True, 'peephole': True}),
                                3, 1, activation='TANH', cell_clip=0.4)),
    ('rnn_bslstm_split_batch_major', bslstm([2, 3, 6], False, False,
                                            (4, 4, {'cifg': True}), (4, 4, {}), 2, 1,
                                            activation='TANH')),
    # SVDF: the keyword spotter over 10 calls; batch 3, rank 3, no bias, activation NONE.
    ('rnn_svdf_keyword_spotter', svdf_keyword_spotter),
    ('rnn_svdf_batch_rank3', svdf(3, 7, 12, 4, 3, False, 'NONE', 6, 3)),
    ('rnn_svdf_tanh_memory1', svdf(2, 5, 6, 1, 2, True, 'TANH', 3, 1)),
    ('rnn_rnn_relu', rnn(2, 5, 7, 'RELU', 4, 2)),
    ('rnn_usrnn_time_major', usrnn([4, 3, 5], True, 6, 'TANH', 3, 1)),
    ('rnn_usrnn_batch_major', usrnn([2, 5, 4], False, 5, 'RELU_N1_TO_1', 2, 1)),
    ('rnn_bsrnn_merge', bsrnn([4, 2, 5], True, True, 6, 3, 'TANH', 3, 1)),
    ('rnn_bsrnn_split_batch_major', bsrnn([3, 3, 4], False, False, 4, 5, 'RELU', 2, 1)),
]


# ---- generating the files with TFLite's classic interpreter (see the top) --------------------

RUNNER = r"""
// run_litert.mjs's job format (plain and `calls` jobs) on tfjs-tflite's TFLite wasm.
const path = require('path');
const fs = require('fs');
let dir = process.argv[2];
for (const d of [path.join(dir, '@tensorflow', 'tfjs-tflite'), dir])
  if (fs.existsSync(path.join(d, 'wasm', 'tflite_web_api_cc.js'))) { dir = d; break; }
const factory = require(path.resolve(dir, 'wasm', 'tflite_web_api_cc.js'));
let k;
function load(model) {
  const buf = fs.readFileSync(model);
  const n = k._malloc(buf.length);
  k.HEAPU8.set(buf, n);
  const p = k.TFLiteWebModelRunner.CreateFromBufferAndOptions(
      n, buf.length, {numThreads: 1, enableProfiling: false, maxProfilingBufferEntries: 1024});
  if (!p.ok()) throw new Error(model + ': ' + p.errorMessage());
  return p.value();
}
function vec(v) { const a = []; for (let i = 0; i < v.size(); i++) a.push(v.get(i)); return a; }
function call(r, inputs, prefix) {
  const ins = vec(r.GetInputs());
  if (ins.length !== inputs.length) throw new Error(prefix + ': wrong input count');
  ins.forEach((t, i) => {
    const b = fs.readFileSync(inputs[i]);
    const f = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const d = t.data();
    if (d.length !== f.length) throw new Error(inputs[i] + ': wrong size');
    d.set(f);
  });
  if (!r.Infer()) throw new Error(prefix + ': Infer failed');
  vec(r.GetOutputs()).forEach((t, i) => {
    fs.writeFileSync(prefix + '.out' + i + '.f32', Buffer.from(Float32Array.from(t.data()).buffer));
  });
}
(async () => {
  k = await factory({wasmBinary: fs.readFileSync(path.join(dir, 'wasm', 'tflite_web_api_cc.wasm'))});
  for (const job of JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) {
    const r = load(job.model);
    if (job.calls) for (const c of job.calls) call(r, c.inputs, c.prefix);
    else call(r, job.inputs, job.prefix);
    console.log(path.basename(job.model) + (job.calls ? ' (' + job.calls.length + ' calls)' : ''));
  }
})().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
"""


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: specs_recurrent.py TFJS_TFLITE_PACKAGE [OUT_DIR]')
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import make
    with tempfile.TemporaryDirectory() as work:
        runner = os.path.join(work, 'run_tflite.cjs')
        with open(runner, 'w') as f:
            f.write(RUNNER)
        real_run = subprocess.run

        def run(cmd, **kw):
            if cmd[:1] == ['node'] and cmd[1].endswith('run_litert.mjs'):
                cmd = ['node', runner] + cmd[2:]
            return real_run(cmd, **kw)
        make.subprocess.run = run
        sys.argv = ['make.py', '--only', 'rnn_'] + sys.argv[1:]
        make.main()


if __name__ == '__main__':
    main()
