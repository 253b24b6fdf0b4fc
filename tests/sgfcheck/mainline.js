// tests/sgfcheck/mainline.js FILE...: the main line of each SGF as
// @sabaki/sgf reads it, in the format of tests/drivers/sgf_mainline.c (see
// there), for tests/sgf_validate.sh to compare.
'use strict';
const sgf = require('@sabaki/sgf');

function points(data, id) {
  const out = [];
  for (const v of data[id] || []) for (const [x, y] of sgf.parseCompressedVertices(v)) out.push(sgf.stringifyVertex([x, y]));
  return out.sort().join(',');
}

function move(v, size) {
  // "" and, on boards up to 19x19, "tt" are passes
  return v === '' || (v === 'tt' && size <= 19) ? '' : v;
}

let rc = 0;
for (const path of process.argv.slice(2)) {
  let roots;
  try {
    roots = sgf.parseFile(path);
  } catch (e) {
    console.error(`mainline.js: ${path}: ${e.message}`);
    rc = 1;
    continue;
  }
  const root = roots[0];
  const size = parseInt((root.data.SZ || ['19'])[0], 10);
  const lines = [`FILE ${path}`, `setup AB:${points(root.data, 'AB')} AW:${points(root.data, 'AW')}`];
  for (let n = root; n; n = n.children[0]) {
    const d = n.data;
    if (n !== root && (d.AB || d.AW || d.AE)) {
      const pl = d.PL ? d.PL[0].toUpperCase() : '-';
      lines.push(`step AB:${points(d, 'AB')} AW:${points(d, 'AW')} AE:${points(d, 'AE')} PL:${pl}`);
    }
    if (d.B) lines.push(`move B:${move(d.B[0], size)}`);
    else if (d.W) lines.push(`move W:${move(d.W[0], size)}`);
  }
  console.log(lines.join('\n'));
}
process.exit(rc);
