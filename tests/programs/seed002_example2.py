import jax
import jax.numpy as jnp
from jax import lax, pmap, grad
# Dummy loss function (e.g., mean squared error)
def loss_fn(params, local_batch):
    # Replace with actual model computation and loss
    predictions = params['w'] * local_batch['x'] + params['b']
    error = predictions - local_batch['y']
    return jnp.mean(error**2)
# Function to compute gradients on one device
def compute_gradients(params, local_batch):
    return grad(loss_fn)(params, local_batch)
# Update step including gradient averaging
def parallel_update_step(params, sharded_batch):
    # Compute gradients locally on each device
    local_grads = compute_gradients(params, sharded_batch)
    # Average gradients across devices using the named axis 'data_parallel_axis'
    # Using pmean directly averages. Using psum and dividing later also works.
    avg_grads = lax.pmean(local_grads, axis_name='data_parallel_axis')
    # Simple gradient descent update (could be replaced with Adam, etc.)
    learning_rate = 0.01
    # Note: In a real scenario, use jax.tree_map for arbitrary pytree structures
    new_params = {
        'w': params['w'] - learning_rate * avg_grads['w'],
        'b': params['b'] - learning_rate * avg_grads['b']
    }
    return new_params
# Get number of devices
n_devices = jax.local_device_count()
# Initialize dummy parameters (same on all devices initially)
params = {'w': jnp.ones(()), 'b': jnp.zeros(())}
# Create dummy data sharded across devices
# Shape: (n_devices, batch_per_device, ...)
xs = jnp.arange(n_devices * 4, dtype=jnp.float32).reshape((n_devices, 4, 1))
ys = (xs * 2.0) + 0.5 # True w=2.0, b=0.5
sharded_batch = {'x': xs, 'y': ys}
# Define the parallel update function using pmap with an axis name
p_update_step = pmap(parallel_update_step, axis_name='data_parallel_axis')
# Execute one update step
new_params = p_update_step(params, sharded_batch)
# The parameters are updated based on the average gradient across all devices
# new_params will be replicated across devices. Access params on one device:
print("Original params:", params)
print("Updated params (on device 0):", jax.tree_map(lambda x: x[0], new_params))
