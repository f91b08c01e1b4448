import { parseQueryFileIncremental } from '../server/lsp/documents.js';
let text = '1\t#combine( a';
let r = parseQueryFileIncremental(text, 'indri', 'a.indri', undefined);
for (let i = 0; i < 20; i++) {
  text += i % 2 ? ' b' : ' #od2( c';
  r = parseQueryFileIncremental(text, 'indri', 'a.indri', r.memo);
}
console.log(r.source.entries[0].result.diagnostics.length, r.source.diagnostics.length);
