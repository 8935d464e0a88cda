"""Made keras3_fit.log: python keras3_fit.py > keras3_fit.log 2>&1"""

import keras
import numpy as np

x = np.random.rand(640, 8).astype("float32")
y = x.sum(1, keepdims=True)
m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
m.compile("sgd", "mse")
m.fit(x, y, epochs=2, batch_size=32, verbose=1)
m.fit(x, y, epochs=1, batch_size=32, verbose=2)
