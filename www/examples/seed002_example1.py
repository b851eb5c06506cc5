import jax
import jax.numpy as jnp
from jax import lax, pmap
# Define a function to be mapped
def scaled_sum(x):
    # Perform some computation
    scaled_x = x * 2.0
    # Sum the results across the devices participating in the pmap
    # Explicitly name the axis for the collective operation
    total_sum = lax.psum(scaled_x, axis_name='devices')
    return total_sum
# Number of devices
n_devices = jax.local_device_count()
print(f"Using {n_devices} devices.")
# Create some input data, sharded across devices
data = jnp.arange(n_devices, dtype=jnp.float32)
# Apply pmap, providing the axis_name 'devices'
# This name binds the string 'devices' to the mapped axis (axis 0 of the input)
parallel_computation = pmap(scaled_sum, axis_name='devices')
# Run the computation
result = parallel_computation(data)
print("Input data:", data)
# The result should be the same on all devices: sum(input * 2)
# Example: If data=[0., 1.], result=[2., 2.] because sum(0*2 + 1*2) = 2
# Example: If data=[0., 1., 2., 3.], result=[12., 12., 12., 12.] because sum(0*2 + 1*2 + 2*2 + 3*2) = 12
print("Result (same on all devices):", result)
# Verify the sum manually
expected_sum = jnp.sum(data * 2.0)
print("Expected sum:", expected_sum)
# Note: The output 'result' will be replicated across all devices.
# Accessing result[0] gives the computed total sum.
assert jnp.allclose(result[0], expected_sum)
