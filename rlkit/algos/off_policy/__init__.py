"""What DDPG, TD3 and SAC share: config, batch contract, agent and loop (numpy), and the twins' base class."""
