package mcts

// PlayParams are search parameters for playing to win, as arena matches,
// the loop's gate and palace's engine play: the full budget on every move
// (no playout-cap randomization), no root noise, no temperature, Gumbel's
// deterministic choice. Callers set what else they vary (draw score,
// leaves per evaluation, seed) on the result.
func PlayParams(simulations int) Params {
	p := DefaultParams()
	p.Simulations = simulations
	p.CheapSimulations, p.FullFraction = 0, 1
	p.NoiseFraction, p.GumbelScale = 0, 0
	p.Temperature, p.TemperatureFinal = 0, 0
	return p
}
