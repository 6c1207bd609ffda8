package referee

// NoHintMessage is the State message ShowNoHint sets.
const NoHintMessage = "no hint"

// ShowNoHint answers a hint request that found nothing (the engine failed):
// any lit hint goes off the board, and the State's message says "no hint"
// until the next move or roll. The game goes on as before.
func (r *Referee) ShowNoHint() {
	r.hint, r.hintText = note{}, ""
	var m []int
	if r.known {
		m = r.mismatch(nil, r.cur)
	}
	r.render(m)
	r.note("%s", NoHintMessage)
}
