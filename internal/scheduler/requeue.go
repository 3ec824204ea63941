package scheduler

import "time"

// queuesAhead says whether running job r, stopped now and back in the
// queue (its SubmittedAt kept, this run's service added to its attained
// service, waiting since now), would be ordered before head. Preempting it
// for head would then only place it again on the GPUs it gave up, and
// head would wait on: a restart that helps nobody, repeated every
// MinRuntime. preempt therefore never picks such a victim.
func (p *pass) queuesAhead(r, head *Job) bool {
	if p.promoted(head) {
		return false // the zipper puts it first
	}
	back := *r
	back.AttainedGPUSeconds = p.attained(r)
	back.StartedAt, back.GPUs, back.PreemptedAt = time.Time{}, nil, p.now
	bd, hd := int64(p.duration(&back)), int64(p.duration(head))
	kb := p.sortKeyOf(&back, bd, p.score(&back, bd, p.fs))
	kh := p.sortKeyOf(head, hd, p.score(head, hd, p.fs))
	return kb.compare(kh) < 0
}
