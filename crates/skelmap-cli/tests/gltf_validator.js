// Runs the Khronos glTF-Validator (npm package `gltf-validator`) over the files named on the
// command line and prints one JSON line per file: counts of errors, warnings, infos and
// hints, and the error and warning messages. The package is looked up in the directory
// GLTF_VALIDATOR_DIR (where `npm install --prefix DIR gltf-validator` put it).
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require(path.join(process.env.GLTF_VALIDATOR_DIR || '.', 'node_modules', 'gltf-validator'));

// A valid 1x1 RGBA PNG.
const ONE_PIXEL_PNG = new Uint8Array(Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'));

async function main() {
  for (const file of process.argv.slice(2)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0,
      // The .bin beside a .gltf is read. A texture file a model names (an MS3D material's,
      // a GameStudio external skin) is not shipped with the shared corpus: a 1x1 PNG stands
      // in for it, so that the document around it is what gets validated.
      externalResourceFunction: (uri) => new Promise((resolve, reject) => {
        const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(full, (err, data) => {
          if (!err) resolve(new Uint8Array(data));
          else if (/\.(png|jpe?g|tga|bmp|dds|pcx)$/i.test(uri)) resolve(ONE_PIXEL_PNG);
          else reject(err);
        });
      }),
    });
    const issues = report.issues;
    console.log(JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      hints: issues.numHints,
      messages: issues.messages.filter((m) => m.severity <= 1).slice(0, 20)
        .map((m) => `${m.code} ${m.pointer || ''}: ${m.message}`),
    }));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
