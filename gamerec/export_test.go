package gamerec

// SampleGames lends the package's sample games to its external tests
// (those that run self-play, which imports gamerec).
var SampleGames = sampleGames
