// Fairy-Stockfish's game results, through ffish (npm's WebAssembly build of
// Fairy-Stockfish), for palace's differential tests.
//
// Reads lines VARIANT<TAB>FEN<TAB>MOVES (UCI, ranks 1-10) and writes, for
// each line, the results after every prefix of the moves (the empty prefix
// first), each as CLAIM/NOCLAIM (result(true), result(false)), separated by
// spaces, then a tab and the final FEN.
//
// Usage: node scripts/ffish-oracle.js < lines   (ffish resolved from
// NODE_PATH or the working directory's node_modules)
globalThis.fetch = undefined; // ffish 0.7.10 must not try to fetch its wasm under Node >= 18
const ffish = require('ffish');
const readline = require('readline');

ffish['onRuntimeInitialized'] = () => {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  const out = [];
  rl.on('line', (line) => {
    if (line === '') return;
    const [variant, fen, moves] = line.split('\t');
    const board = new ffish.Board(variant, fen);
    const results = [board.result(true) + '/' + board.result(false)];
    for (const m of (moves || '').split(' ').filter((x) => x !== '')) {
      if (!board.push(m)) {
        results.push('illegal:' + m);
        break;
      }
      results.push(board.result(true) + '/' + board.result(false));
    }
    out.push(results.join(' ') + '\t' + board.fen());
    board.delete();
  });
  rl.on('close', () => {
    process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
  });
};
