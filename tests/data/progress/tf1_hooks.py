"""Made tf1_hooks.log: python tf1_hooks.py > tf1_hooks.log 2>&1"""

import logging
import tempfile

import tensorflow as tf

tf.compat.v1.disable_eager_execution()
tf.get_logger().setLevel(logging.INFO)
gs = tf.compat.v1.train.get_or_create_global_step()
x = tf.random.normal([32, 8])
y = tf.reduce_sum(x, 1, keepdims=True)
w = tf.compat.v1.get_variable("w", [8, 1])
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
hooks = [
    tf.compat.v1.train.StopAtStepHook(last_step=300),
    tf.compat.v1.train.LoggingTensorHook({"loss": loss, "step": gs}, every_n_iter=50),
]
with tf.compat.v1.train.MonitoredTrainingSession(
    checkpoint_dir=tempfile.mkdtemp(),
    hooks=hooks,
    log_step_count_steps=50,
    save_checkpoint_steps=100,
) as s:
    while not s.should_stop():
        s.run(op)
