// Package mcts searches a rules.Game with an nn.Evaluator: batched PUCT
// (AlphaZero) and Gumbel (Danihelka et al., "Policy improvement by planning
// with Gumbel", ICLR 2022) tree search, built to make every network
// evaluation count on a small machine.
//
// One Search serves one game. Many games share a network by giving each
// Search its own client of one nn.Batcher, behind one shared nn.Cache:
//
//	b := nn.NewBatcher(net, 256)
//	table := nn.NewCache(nil, 1<<20)
//	for each game goroutine:
//		c := b.NewClient()
//		s, err := mcts.New(params, table.WithBackend(c))
//		for the game's moves:
//			r, err := s.Run(g) // r.Best, and r.Policy as the target when r.Full
//			g.Play(r.Best)
//		c.Close()
//
// # Tree
//
// Nodes live in a pool (a slice) linked by int32 indices, a node's
// children contiguous. Values are kept from the side to move's view and
// backed up as win − loss with the draw probability beside it, so the root's
// WDL is the mean of the network's WDLs and exact results. Between moves Run
// finds the subtree of the position it is given (the game may have moved on
// by up to 32 plies; encode's history-aware key checks it is the same game)
// and compacts it into a second pool, so steady-state searching allocates
// nothing. Leaves are scored by rules.Game.Result with every claim applied:
// a finished game is exact (a loss to the side to move is −1, a draw 0).
// Proofs rise as in MCTS-Solver, with the number of plies to the end: a
// child lost for its side to move makes its parent won (by the shortest
// such child); a node whose children are all decided is worth the best (a
// loss by the longest). Decided nodes are not searched again. A search
// stops when the root is decided, except that a won root keeps searching
// its open moves, within the budget, while one of them could still win
// sooner (an unvisited move might mate at once; a visited one in 3 plies at
// the soonest).
//
// # PUCT
//
// Selection maximises Q(a) + c(N)·P(a)·sqrt(N)/(1 + n(a)) with AlphaZero's
// c(N) = CPuctInit + log((N + CPuctBase + 1)/CPuctBase) (1.25, 19652). An
// unvisited move is valued at first-play urgency, the parent's mean value
// less FPUReduction·sqrt(sum of the visited moves' priors) (0.2; 0.1 at the
// root, KataGo's). Decided moves are skipped. Full searches mix Dirichlet
// noise into the root priors, α = DirichletTotal / (legal moves) with
// fraction NoiseFraction (10.83, 0.25); the noise is taken back before the
// next search of the tree. The target is the visit distribution, and the
// move is drawn from visits^(1/T) under the temperature schedule.
//
// # Gumbel
//
// At the root k = min(GumbelK, legal moves) actions are sampled without
// replacement by Gumbel-top-k: the k largest g(a) + logit(a), g ~ Gumbel(0,
// 1)·GumbelScale. Sequential halving (mctx's schedule) spends the budget n
// over them: each gets max(1, ⌊n/(⌈log2 k⌉·k)⌋) visits, the best half by
// g(a) + logit(a) + σ(q̂(a)) as many again relative to their number, and so
// on down to two, until n is spent. σ(q̂) = (CVisit + max_b N(b))·CScale·q̂
// (50, 1) with q̂ = (Q+1)/2 ∈ [0, 1], Q being the completed Q-value: a
// visited move's mean value, else v_mix, the network's value of the node
// averaged with the prior-weighted mean Q of the visited moves (the paper's
// eq. 33, weight ΣN). The move played is the surviving action with the
// largest g + logit + σ(q̂); the training target is the improved policy
// π' = softmax(logit + σ(completed Q)) over every legal move. Below the
// root selection is the paper's deterministic rule, argmax π'(a) − N(a)/(1 +
// ΣN). Gumbel uses no Dirichlet noise and no temperature: its randomness is
// the Gumbel sample, and GumbelScale 0 makes it deterministic.
//
// # Draw score
//
// Both algorithms read a move's Q as the side choosing it does: win − loss
// plus DrawScore × the move's mean draw probability (lc0's draw score; a
// proven draw is worth DrawScore). A negative one makes both sides prefer
// playing on to a repetition or a drawish line, which is what turns a
// won-but-aimless position into a mate when the value head is weak. It
// steers selection, the move and Gumbel's target; the root's reported
// Value and WDL stay the plain backed-up means.
//
// # Batching, budgets, determinism
//
// A tree gathers up to LeavesPerEval leaves per Evaluate call, each visit in
// flight counting as a loss (VirtualLoss) on its path; a leaf reached twice
// in one gathering ends it. Leaves carry encode.Key, so a shared Cache
// answers repeated positions. Playout-cap randomization (KataGo) gives a
// FullFraction of moves the full budget (Result.Full: record them as policy
// targets) and the rest CheapSimulations without noise; a forced move is
// played without search. All randomness comes from one PCG seeded by
// Params.Seed and drawn in a fixed order: the same seed, network and
// positions give the same results, batched or not. Searches stop on
// simulation counts, on time only when RunOptions asks.
//
// # Engine play
//
// RunOptions.RootMoves restricts one search to some root moves (UCI's go
// searchmoves): the others are never selected, and the root's proof, the
// move, the PV, the policy and the value are over the allowed moves alone,
// through a mask on the root's children (no allocation per simulation);
// the tree keeps everything, and the next search without the restriction
// sees the root's true proof. RunOptions.MatePlies ends a search once the
// root is proven won that soon (go mate), Gumbel then considering every
// root move. Result.Depth is the deepest leaf a search reached (seldepth).
// After a search, Lines ranks the root's moves by visits with each one's
// value, proof and PV (MultiPV), and Probe reads what the tree holds of a
// position at or below the root (UCCI's probe).
package mcts
