package console

import (
	"net/http"
	"time"

	"github.com/sqsq/sqsq"
)

// redriveInput is the body of POST …/redrive.
type redriveInput struct {
	// Rate is MaxNumberOfMessagesPerSecond, 1–500; absent moves at 500.
	Rate *int `json:"rate"`
	// DestinationArn receives every message; absent, each goes back to
	// the queue it was dead-lettered from.
	DestinationArn string `json:"destinationArn"`
}

// redrive answers POST /_sqsq/api/queues/{name}/redrive: it starts a move
// task out of the dead-letter queue {name} (StartMessageMoveTask) and
// answers its handle. Errors are StartMessageMoveTask's: InvalidParameterValue
// for a queue that is no dead-letter queue, a task already running, a rate
// outside 1–500; ResourceNotFoundException (404) for a destination that
// does not exist.
func (c *console) redrive(w http.ResponseWriter, r *http.Request) {
	var in redriveInput
	if !decode(w, r, &in) {
		return
	}
	b, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	task := sqsq.StartMoveTaskInput{SourceArn: q.ARN(), DestinationArn: in.DestinationArn}
	if in.Rate != nil {
		task.MaxNumberOfMessagesPerSecond = sqsq.Some(*in.Rate)
	}
	handle, err := b.StartMoveTask(r.Context(), task)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		TaskHandle string `json:"taskHandle"`
	}{handle})
}

// moveTask is a move task as ListMessageMoveTasks describes it.
type moveTask struct {
	TaskHandle                        string    `json:"taskHandle,omitempty"`
	Status                            string    `json:"status"`
	SourceArn                         string    `json:"sourceArn"`
	DestinationArn                    string    `json:"destinationArn,omitempty"`
	MaxNumberOfMessagesPerSecond      *int      `json:"maxNumberOfMessagesPerSecond,omitempty"`
	ApproximateNumberOfMessagesMoved  int64     `json:"approximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove int64     `json:"approximateNumberOfMessagesToMove"`
	FailureReason                     string    `json:"failureReason,omitempty"`
	StartedAt                         time.Time `json:"startedAt"`
}

// tasks answers GET /_sqsq/api/queues/{name}/tasks: the move tasks out of
// the queue, newest first, the 10 most recent (ListMessageMoveTasks).
func (c *console) tasks(w http.ResponseWriter, r *http.Request) {
	b, q, ok := c.queue(w, r)
	if !ok {
		return
	}
	list, err := b.ListMoveTasks(r.Context(), q.ARN(), sqsq.Some(10))
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]moveTask, 0, len(list))
	for _, t := range list {
		mt := moveTask{
			TaskHandle: t.TaskHandle, Status: t.Status, SourceArn: t.SourceArn, DestinationArn: t.DestinationArn,
			ApproximateNumberOfMessagesMoved:  t.ApproximateNumberOfMessagesMoved,
			ApproximateNumberOfMessagesToMove: t.ApproximateNumberOfMessagesToMove,
			FailureReason:                     t.FailureReason, StartedAt: time.UnixMilli(t.StartedTimestamp).UTC(),
		}
		if rate, ok := t.MaxNumberOfMessagesPerSecond.Get(); ok {
			mt.MaxNumberOfMessagesPerSecond = &rate
		}
		out = append(out, mt)
	}
	writeJSON(w, http.StatusOK, struct {
		Tasks []moveTask `json:"tasks"`
	}{out})
}
