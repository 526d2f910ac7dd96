"""Serial-link arms: link tables, kinematics and dynamics kernels."""
