-- :checkhealth ctxls: the Neovim version, the server command, and whether the buffer the
-- check was started from has our client.
local M = {}

-- `ctxls serve` becomes `ctxls --help`, `python -m ctxls serve` becomes
-- `python -m ctxls --help`: the same program, asked to describe itself.
local function help_command(cmd)
  local out = {}
  for _, part in ipairs(cmd) do
    if part == "serve" then
      break
    end
    out[#out + 1] = part
  end
  out[#out + 1] = "--help"
  return out
end

local function check_version()
  local v = vim.version()
  local text = ("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.version.ge(v, { 0, 10, 0 }) then
    vim.health.ok(text)
  else
    vim.health.error(text .. ": ctxls needs 0.10 or newer (vim.lsp.start, vim.fs.root)")
  end
end

local function check_command(cmd)
  local shown = table.concat(cmd, " ")
  if vim.fn.executable(cmd[1]) ~= 1 then
    vim.health.error(("`%s` not found on PATH"):format(cmd[1]), {
      "pip install ctxls (or the repository: pip install -e .), or give the full path:",
      "require('ctxls').setup{ cmd = { '/path/to/.venv/bin/ctxls', 'serve' } }",
    })
    return
  end
  local help = help_command(cmd)
  local ok, proc = pcall(vim.system, help, { text = true })
  if not ok then
    vim.health.error(("`%s` could not be started: %s"):format(table.concat(help, " "), proc))
    return
  end
  local res = proc:wait(15000)
  local out = (res.stdout or "") .. (res.stderr or "")
  if res.code == 0 and out:find("serve", 1, true) then
    vim.health.ok(("server command: `%s` (`%s` runs)"):format(shown, table.concat(help, " ")))
  else
    vim.health.error(("`%s` failed (exit %s): %s"):format(
      table.concat(help, " "), tostring(res.code), vim.trim(out):sub(1, 300)))
  end
end

-- The check runs in the health buffer: the buffer the user came from is the alternate one.
local function check_buffer(config)
  local bufnr = vim.fn.bufnr("#")
  if bufnr < 1 or not vim.api.nvim_buf_is_valid(bufnr) then
    vim.health.info("no buffer to check (run :checkhealth ctxls from a source file)")
    return
  end
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":~:.")
  local c = require("ctxls.client").get(bufnr)
  if c then
    vim.health.ok(("client %d attached to %s (root %s, position encoding %s)"):format(
      c.id, name, c.root_dir or "?", c.offset_encoding))
    return
  end
  local ft = vim.bo[bufnr].filetype
  if vim.tbl_contains(config.filetypes, ft) then
    vim.health.warn(("no ctxls client on %s (filetype %s)"):format(name, ft),
      { "see :LspLog, or start it with :lua require('ctxls').attach()" })
  else
    vim.health.info(("no ctxls client on %s: filetype %q is not in `filetypes`"):format(name, ft))
  end
end

function M.check()
  vim.health.start("ctxls")
  check_version()
  local ctxls = require("ctxls")
  local ok, autocmds = pcall(vim.api.nvim_get_autocmds, { group = "ctxls", event = "FileType" })
  if not ok or not autocmds[1] then
    vim.health.warn("setup() has not been called", { "require('ctxls').setup{}" })
  end
  check_command(ctxls.config.cmd)
  check_buffer(ctxls.config)
  for _, c in ipairs(vim.lsp.get_clients({ name = "ctxls" })) do
    vim.health.info(("running: client %d, root %s"):format(c.id, c.root_dir or "?"))
  end
end

return M
