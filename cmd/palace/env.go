package main

import "github.com/palace-chess/palace/nn/model"

// checkEnv refuses, before any command runs, a PALACE_* environment
// variable set to a value it does not take, each the same way (issue 47:
// PALACE_KERNEL=garbage was refused, PALACE_BLAS=garbage and
// PALACE_WINOGRAD=garbage quietly ignored, and PALACE_KERNEL only by the
// commands that load a network). PALACE_CPUPROFILE is startProfile's;
// PALACE_NATS is the distributed roles' --nats, checked as the flag is.
func checkEnv() error {
	return model.CheckEnv()
}
