package console_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/sqsq/sqsq"
)

type tasksJSON struct {
	Tasks []struct {
		TaskHandle                        string    `json:"taskHandle"`
		Status                            string    `json:"status"`
		SourceArn                         string    `json:"sourceArn"`
		DestinationArn                    string    `json:"destinationArn"`
		MaxNumberOfMessagesPerSecond      *int      `json:"maxNumberOfMessagesPerSecond"`
		ApproximateNumberOfMessagesMoved  int64     `json:"approximateNumberOfMessagesMoved"`
		ApproximateNumberOfMessagesToMove int64     `json:"approximateNumberOfMessagesToMove"`
		FailureReason                     string    `json:"failureReason"`
		StartedAt                         time.Time `json:"startedAt"`
	} `json:"tasks"`
}

// deadLetter sends n messages to src and receives them until its redrive
// policy (maxReceiveCount 1) moves them to the dead-letter queue.
func deadLetter(e *env, src *sqsq.Queue, n int) {
	e.t.Helper()
	for range n {
		e.send(src, sqsq.SendInput{MessageBody: "poison"})
	}
	for range 2 {
		if _, err := src.Receive(context.Background(), sqsq.ReceiveInput{MaxNumberOfMessages: 10, VisibilityTimeout: sqsq.Some(time.Duration(0))}); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestRedrive(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	src, dlq := withDLQ(e, "1")
	deadLetter(e, src, 2)
	if st := e.stats(dlq); st.Visible != 2 {
		t.Fatalf("dead-letter queue %+v, want 2 messages", st)
	}
	var page pageJSON
	e.ok("GET", "/_sqsq/api/queues/orders-dlq/messages", nil, &page)
	if len(page.Messages) != 2 || page.Messages[0].DeadLetterSourceArn != src.ARN() {
		t.Errorf("dead-lettered messages %+v, want their source", page.Messages)
	}

	var started struct {
		TaskHandle string `json:"taskHandle"`
	}
	e.ok("POST", "/_sqsq/api/queues/orders-dlq/redrive", map[string]any{"rate": 1}, &started)
	if started.TaskHandle == "" {
		t.Fatal("no task handle")
	}
	var tasks tasksJSON
	e.ok("GET", "/_sqsq/api/queues/orders-dlq/tasks", nil, &tasks)
	if len(tasks.Tasks) != 1 {
		t.Fatalf("tasks %+v", tasks)
	}
	task := tasks.Tasks[0]
	if task.Status != sqsq.MoveTaskRunning || task.TaskHandle != started.TaskHandle || task.SourceArn != dlqARN ||
		task.MaxNumberOfMessagesPerSecond == nil || *task.MaxNumberOfMessagesPerSecond != 1 ||
		task.ApproximateNumberOfMessagesToMove != 2 || !task.StartedAt.Equal(start) {
		t.Errorf("running task %+v", task)
	}
	// A second task while one runs is refused, and changes nothing.
	e.fails("POST", "/_sqsq/api/queues/orders-dlq/redrive", nil, http.StatusBadRequest, "InvalidParameterValue")

	e.ok("POST", "/_sqsq/api/clock/advance", map[string]string{"duration": "2s"}, nil)
	tasks = tasksJSON{} // Unmarshal would keep the fields the answer omits
	e.ok("GET", "/_sqsq/api/queues/orders-dlq/tasks", nil, &tasks)
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].Status != sqsq.MoveTaskCompleted || tasks.Tasks[0].ApproximateNumberOfMessagesMoved != 2 ||
		tasks.Tasks[0].TaskHandle != "" {
		t.Errorf("after 2 s at 1 message/s: %+v", tasks.Tasks)
	}
	if st := e.stats(src); st.Visible != 2 {
		t.Errorf("source %+v, want the 2 messages back", st)
	}
}

func TestRedriveRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, queue string
		body        any
		status      int
		code        string
	}{
		{"not a dead-letter queue", "orders", nil, 400, "InvalidParameterValue"},
		{"rate 0", "orders-dlq", map[string]any{"rate": 0}, 400, "InvalidParameterValue"},
		{"rate over 500", "orders-dlq", map[string]any{"rate": 501}, 400, "InvalidParameterValue"},
		{"no such destination", "orders-dlq", map[string]any{"destinationArn": "arn:aws:sqs:us-east-1:000000000000:nope"}, 404, "ResourceNotFoundException"},
		{"destination of the other type", "orders-dlq", map[string]any{"destinationArn": "arn:aws:sqs:us-east-1:000000000000:q.fifo"}, 400, "InvalidParameterValue"},
		{"rate not a number", "orders-dlq", `{"rate":"fast"}`, 400, "SerializationException"},
		{"no such queue", "nope", nil, 404, "QueueDoesNotExist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			src, dlq := withDLQ(e, "1")
			e.queue("q.fifo", map[string]string{sqsq.AttrFifoQueue: "true"})
			deadLetter(e, src, 1)
			e.fails("POST", "/_sqsq/api/queues/"+tc.queue+"/redrive", tc.body, tc.status, tc.code)
			var tasks tasksJSON
			e.ok("GET", "/_sqsq/api/queues/orders-dlq/tasks", nil, &tasks)
			if len(tasks.Tasks) != 0 || e.stats(dlq).Visible != 1 {
				t.Errorf("a refused redrive started %+v", tasks.Tasks)
			}
		})
	}
}

func TestTasksOfMissingQueue(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.fails("GET", "/_sqsq/api/queues/nope/tasks", nil, http.StatusNotFound, "QueueDoesNotExist")
	e.queue("q", nil)
	var tasks tasksJSON
	e.ok("GET", "/_sqsq/api/queues/q/tasks", nil, &tasks)
	if tasks.Tasks == nil || len(tasks.Tasks) != 0 {
		t.Errorf("tasks of a queue that never had one: %+v, want []", tasks)
	}
}
