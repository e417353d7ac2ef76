"""Scripted judge servers, data builders and other helpers the tests share."""
