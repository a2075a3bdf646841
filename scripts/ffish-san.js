// Fairy-Stockfish's SAN and PGN reading, through ffish (npm's WebAssembly
// build of Fairy-Stockfish), for palace's notation and PGN tests.
//
// node scripts/ffish-san.js san < lines
//   Reads lines VARIANT<TAB>FEN<TAB>MOVES<TAB>PLIES (UCI moves, ranks 1-10;
//   PLIES a comma-separated list of ply numbers, possibly empty) and writes,
//   for each, one line "SAN " + JSON {"san": [SAN of each move, in order],
//   "legal": {"ply": [[uci, san], ...]}}: every legal move with its SAN in
//   the positions after the listed numbers of plies.
//
// node scripts/ffish-san.js readpgn < lines
//   Reads lines each holding one PGN game as a JSON string and writes, for
//   each, one line "PGN " + JSON {"variant", "fen", "moves"}: the Variant
//   and FEN tags ffish read and its mainline moves in UCI.
//
// Lines of ours start with "SAN " or "PGN "; anything else ffish prints on
// stdout is to be ignored. ffish is resolved from NODE_PATH or the working
// directory's node_modules.
globalThis.fetch = undefined; // ffish 0.7.10 must not try to fetch its wasm under Node >= 18
const ffish = require('ffish');
const readline = require('readline');

const mode = process.argv[2];
if (mode !== 'san' && mode !== 'readpgn') {
  process.stderr.write('usage: node ffish-san.js san|readpgn < lines\n');
  process.exit(2);
}

function sanLine(line) {
  const [variant, fen, moves, plies] = line.split('\t');
  const board = new ffish.Board(variant, fen);
  const list = new Set((plies || '').split(',').filter((x) => x !== '').map(Number));
  const out = { san: [], legal: {} };
  const dump = (ply) => {
    if (!list.has(ply)) return;
    const uci = board.legalMoves().split(' ').filter((x) => x !== '');
    const san = board.legalMovesSan().split(' ').filter((x) => x !== '');
    out.legal[ply] = uci.map((m, i) => [m, san[i]]);
  };
  const ms = (moves || '').split(' ').filter((x) => x !== '');
  dump(0);
  for (let i = 0; i < ms.length; i++) {
    const san = board.sanMove(ms[i]);
    if (san === '' || !board.push(ms[i])) {
      out.san.push('illegal:' + ms[i]);
      break;
    }
    out.san.push(san);
    dump(i + 1);
  }
  board.delete();
  return 'SAN ' + JSON.stringify(out);
}

function pgnLine(line) {
  const game = ffish.readGamePGN(JSON.parse(line));
  const out = { variant: game.headers('Variant'), fen: game.headers('FEN'), moves: game.mainlineMoves() };
  game.delete();
  return 'PGN ' + JSON.stringify(out);
}

ffish['onRuntimeInitialized'] = () => {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  const out = [];
  rl.on('line', (line) => {
    if (line === '') return;
    out.push(mode === 'san' ? sanLine(line) : pgnLine(line));
  });
  rl.on('close', () => {
    // One write at the end, after a newline, so that our lines never share
    // one with text ffish printed without a newline.
    process.stdout.write('\n' + out.join('\n') + '\n');
  });
};
