// node run.mjs OUTDIR astronaut.png camera.png hand.jpg
// Serves page.html, node_modules and the photos from a local http server, runs each case
// below in headless Chromium (software WebGL2: SwiftShader) and writes OUTDIR/<case>.json.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const here = path.dirname(new URL(import.meta.url).pathname);
const [outDir, ...photoPaths] = process.argv.slice(2);
const photos = Object.fromEntries(photoPaths.map((p) => [path.basename(p), p]));
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'))).dependencies;

// Each case runs twice, once per inference backend: 'gpu' (MediaPipe's default, TFLite's
// GPU delegate on WebGL2) and 'cpu' (useCpuInference: TFLite's CPU kernels in wasm).
const face = {staticImageMode: true, selfieMode: false, maxNumFaces: 1, refineLandmarks: false,
              minDetectionConfidence: 0.5};
const pose = (c) => ({staticImageMode: true, selfieMode: false, modelComplexity: c,
                      enableSegmentation: false, smoothLandmarks: false,
                      minDetectionConfidence: 0.5});
const hands = (c) => ({staticImageMode: true, selfieMode: false, maxNumHands: 2,
                       modelComplexity: c, minDetectionConfidence: 0.5});
const cases = [
  ['face_mesh_astronaut', 'face_mesh', 'astronaut.png', face],
  ['pose_full_astronaut', 'pose', 'astronaut.png', pose(1)],
  ['pose_lite_astronaut', 'pose', 'astronaut.png', pose(0)],
  ['hands_full_hand', 'hands', 'hand.jpg', hands(1)],
  ['hands_lite_hand', 'hands', 'hand.jpg', hands(0)],
  ['hands_full_camera', 'hands', 'camera.png', hands(1)],
  ['hands_lite_camera', 'hands', 'camera.png', hands(0)],
];
// Options recorded but not passed to setOptions:
// - staticImageMode is no option of the JS solutions: each case runs on a fresh instance
//   that sees the photo once, and the first frame of the tracking graph always runs the
//   detector, as static-image mode does.
// - face_mesh's minDetectionConfidence: setting it aborts the graph ("RET_CHECK failure
//   ... tensors_to_detections_calculator.cc:650 options_.has_num_classes()"); its graph's
//   own value (face_detection_short_range.pbtxt: min_score_thresh 0.5) is the same.
const notPassed = (solution) => ['staticImageMode',
                                 ...(solution === 'face_mesh' ? ['minDetectionConfidence'] : [])];

const types = {'.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.png': 'image/png', '.jpg': 'image/jpeg'};
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = url.startsWith('/photo/') ? photos[url.slice(7)]
    : url === '/page.html' || url.startsWith('/node_modules/@mediapipe/') ? path.join(here, url)
    : null;
  if (!file || url.includes('..') || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream'});
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  protocolTimeout: 600000,
  args: ['--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader',
         '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});

const r3 = (v) => Math.round(v * 1000) / 1000;
const r6 = (v) => Math.round(v * 1e6) / 1e6;
let failed = 0;
for (const [base, solution, photo, options] of cases) for (const backend of ['gpu', 'cpu']) {
  const name = `${base}_${backend}`;
  const page = await browser.newPage();
  page.on('console', (m) => process.env.VERBOSE && console.log(`  [${name}] ${m.text()}`));
  page.on('pageerror', (e) => console.log(`  [${name}] page error: ${e.message}`));
  try {
    await page.goto(`${origin}/page.html?solution=${solution}`);
    const passed = {...options, useCpuInference: backend === 'cpu'};
    for (const k of notPassed(solution)) delete passed[k];
    const t0 = Date.now();
    const r = await page.evaluate((o, u) => runCase(o, u), passed, `/photo/${photo}`);
    const out = {
      solution, photo, width: r.width, height: r.height, options,
      options_not_passed: notPassed(solution), inference: backend,
      package: `@mediapipe/${solution}@${pkg['@mediapipe/' + solution]}`,
      browser: await browser.version(), webgl_renderer: r.renderer,
      coordinates: 'x, y: photo pixels (normalized x * width, y * height); z: as MediaPipe gives it',
      results: r.results.map((res) => {
        const o = {landmarks: res.landmarks.map((p) => [r3(p.x * r.width), r3(p.y * r.height), r6(p.z)])};
        if (res.handedness) o.handedness = {label: res.handedness.label, score: r6(res.handedness.score)};
        if (res.landmarks[0].visibility !== undefined) o.visibility = res.landmarks.map((p) => r6(p.visibility));
        return o;
      }),
    };
    // One landmark per line keeps the files readable and their diffs small.
    const text = JSON.stringify(out, null, 1).replace(/\[\s+(-?[\d.e-]+),\s+(-?[\d.e-]+),\s+(-?[\d.e-]+)\s+\]/g, '[$1, $2, $3]');
    fs.writeFileSync(path.join(outDir, `${name}.json`), text + '\n');
    console.log(`${name}: ${out.results.map((x) => x.landmarks.length).join('+') || 'no'} landmarks` +
                ` (${((Date.now() - t0) / 1000).toFixed(1)} s, ${r.renderer})`);
  } catch (e) {
    failed++;
    console.log(`${name}: FAILED: ${e.message}`);
  }
  await page.close();
}
await browser.close();
server.close();
process.exit(failed ? 1 : 0);
