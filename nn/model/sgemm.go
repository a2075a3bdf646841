package model

// goSgemm computes c[m×n] += a[m×k] · b[k×n], all row-major. It is the one
// kernel the forward pass spends its time in; this is the portable Go
// version (four rows of a share each pass over a row of b).
func goSgemm(m, n, k int, a, b, c []float32) {
	_ = a[m*k-1]
	_ = b[k*n-1]
	_ = c[m*n-1]
	i := 0
	for ; i+4 <= m; i += 4 {
		c0, c1, c2, c3 := c[i*n:][:n], c[(i+1)*n:][:n], c[(i+2)*n:][:n], c[(i+3)*n:][:n]
		for p := 0; p < k; p++ {
			a0, a1, a2, a3 := a[i*k+p], a[(i+1)*k+p], a[(i+2)*k+p], a[(i+3)*k+p]
			if a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0 {
				continue
			}
			bp := b[p*n:][:n]
			for j, bv := range bp {
				c0[j] += a0 * bv
				c1[j] += a1 * bv
				c2[j] += a2 * bv
				c3[j] += a3 * bv
			}
		}
	}
	for ; i < m; i++ {
		ci := c[i*n:][:n]
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			if av == 0 {
				continue
			}
			for j, bv := range b[p*n:][:n] {
				ci[j] += av * bv
			}
		}
	}
}
