-- Our language client, found by name: vim.lsp.buf_request would send ctx/* to every client
-- attached to the buffer (pyright, gopls, ...), so every request goes to the "ctxls" one.
-- Errors become one notification with the server's own message (it says what to do).
local M = {}

M.name = "ctxls"

local has_011 = vim.fn.has("nvim-0.11") == 1

--- Calls a Client method: `client:m(...)` on 0.11 (`client.m` is deprecated there), the
--- plain function field on 0.10.
local function call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- The ctxls client attached to `bufnr`, or nil.
function M.get(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
end

function M.notify_error(msg)
  vim.notify("ctxls: " .. msg, vim.log.levels.ERROR)
end

--- The client for `bufnr`, or nil after saying why there is none.
function M.require(bufnr)
  local client = M.get(bufnr)
  if client then
    return client
  end
  local ft = vim.bo[bufnr].filetype
  M.notify_error(("not attached to this buffer (filetype %q); see :checkhealth ctxls"):format(ft))
  return nil
end

--- Tells listeners (a statusline, the tests) that a command finished.
function M.done(command, ok, extra)
  local data = vim.tbl_extend("force", { command = command, ok = ok }, extra or {})
  M.last_event = data
  vim.api.nvim_exec_autocmds("User", { pattern = "CtxlsDone", modeline = false, data = data })
end

--- Sends `method` to our client for `bufnr`; `on_result(result, client)` runs on success.
--- A JSON-RPC error is shown with the server's message unless `on_error(err)` returns true
--- (it took over); a fault in `on_result` is one line (the traceback goes to the LSP log,
--- not to the user).
---@param command string the user command, named in the CtxlsDone event
function M.request(command, bufnr, method, params, on_result, on_error)
  local client = M.require(bufnr)
  if not client then
    M.done(command, false, { error = "not attached" })
    return
  end
  M.last_request = { command = command, method = method, params = params }
  local sent = call(client, "request", method, params, function(err, result)
    if err and on_error and on_error(err) then
      return
    end
    if err then
      M.notify_error(err.message or tostring(err))
      M.done(command, false, { error = err.message, code = err.code })
      return
    end
    local ok, fault = xpcall(on_result, debug.traceback, result, client)
    if not ok then
      vim.lsp.log.error("ctxls", command, fault)
      M.notify_error(("could not show the answer to %s: %s"):format(
        method, tostring(fault):match("^[^\n]*")))
    end
    M.done(command, ok, ok and {} or { error = fault })
  end, bufnr)
  if not sent then
    M.notify_error("the server is not running; see :checkhealth ctxls")
    M.done(command, false, { error = "not running" })
  end
end

--- A request answered before returning (completion needs one), nil on error or timeout.
function M.request_sync(bufnr, method, params, timeout_ms)
  local client = M.get(bufnr)
  if not client then
    return nil
  end
  local answer = call(client, "request_sync", method, params, timeout_ms or 1000, bufnr)
  if not answer or answer.err then
    return nil
  end
  return answer.result
end

--- `{textDocument, position}` at the cursor of `win`, in the client's negotiated encoding
--- (Neovim 0.11 offers utf-8 first; other servers and older versions get utf-16).
function M.position_params(win, client)
  return vim.lsp.util.make_position_params(win, client.offset_encoding)
end

--- Blocks until our client for `bufnr` is initialized and the server's background scan has
--- finished (ctx/status with `wait`), at most `timeout_ms`. Returns the status, or nil.
function M.wait_ready(bufnr, timeout_ms)
  timeout_ms = timeout_ms or 30000
  local start = vim.uv.now()
  local ready = vim.wait(timeout_ms, function()
    local c = M.get(bufnr)
    return c ~= nil and c.initialized == true
  end, 20)
  if not ready then
    return nil
  end
  local left = math.max(1, timeout_ms - (vim.uv.now() - start))
  return M.request_sync(bufnr, "ctx/status", { wait = true, timeout = left / 1000 }, left)
end

return M
