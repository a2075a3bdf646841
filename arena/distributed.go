package arena

// Header is the header Play writes in m's record file (started now): for
// a match played across machines (package cluster's gate), its pairs on
// workers (PlayPairs) and its record file kept in a store by one machine
// (WriteRecords, ParseRecords).
func (m *Match) Header() Header { return m.header() }
