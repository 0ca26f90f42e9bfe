// Runs the Khronos glTF-Validator (npm package `gltf-validator`) over the files named on the
// command line and prints one JSON line per file: counts of errors, warnings, infos and
// hints, and the error and warning messages. The package is looked up in the directory
// GLTF_VALIDATOR_DIR (where `npm install --prefix DIR gltf-validator` put it).
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require(path.join(process.env.GLTF_VALIDATOR_DIR || '.', 'node_modules', 'gltf-validator'));

async function main() {
  for (const file of process.argv.slice(2)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0,
      externalResourceFunction: (uri) => new Promise((resolve, reject) => {
        const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(full, (err, data) => (err ? reject(err) : resolve(new Uint8Array(data))));
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
