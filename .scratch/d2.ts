import { parseQuery, parseQueryFile } from '../grammar/index.js';
let text = '#combine( a';
for (let i = 0; i < 20; i++) text += i % 2 ? ' b' : ' #od2( c';
const r = parseQuery(text, 'indri');
console.log(r.diagnostics.length, r.diagnostics.map(d=>d.code).join(','));
const f = parseQueryFile('1\t'+text, 'indri', 'a.indri');
console.log(f.entries[0].result.diagnostics.length, f.diagnostics.length);
