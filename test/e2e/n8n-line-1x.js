// Setup file of jest.e2e.n8n1.config.js: every N8nHost these tests create runs the n8n 1.x install.
process.env.N8N_HOST_LINE = '1.x';
